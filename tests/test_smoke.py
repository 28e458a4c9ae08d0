import serreg


def test_dict_round_trip_through_frame():
    value = {"a": 1, "b": [1.5, "x", None]}
    assert serreg.deserialize(serreg.serialize(value).to_bytes()) == value
