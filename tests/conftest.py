import pytest

from java_fixture import JavaBuildError, JavaProcess, build_jar


@pytest.fixture(scope="session")
def java_jar():
    """The fixture jar, built (with the JUnit suite) when missing or stale."""
    try:
        build_jar()
    except JavaBuildError as error:
        pytest.fail(str(error), pytrace=False)
    from java_fixture import JAR

    return JAR


@pytest.fixture(scope="session")
def java_echo(java_jar):
    """One Java echo process shared by the session."""
    process = JavaProcess("echo")
    yield process
    assert process.close() == 0


@pytest.fixture(scope="module")
def plain_objects_pickled():
    """The default registry pickles plain objects instead of writing them as implicit structs
    (docs/FORMAT.md 10.9), for the tests that pin the pickle fallback's own frames."""
    import serreg

    serreg.default_registry().configure_fallback(implicit_structs=False)
    yield
    serreg.default_registry().configure_fallback()
