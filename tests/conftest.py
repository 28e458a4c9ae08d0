import pytest

from java_fixture import JavaBuildError, JavaProcess, build_jar

# What the test extra (pyproject.toml: serreg[test]) installs and test modules import at their top.
# Only distributed and ray are optional: their tests skip, saying so.
TEST_EXTRA = {"numpy", "pyarrow", "pandas", "hypothesis", "msgspec", "pyfory", "matplotlib", "tqdm", "build", "mypy", "dask"}
_missing_for_collection: set[str] = set()


def pytest_collectreport(report):
    """Remember the test dependencies whose absence made a test module fail to import."""
    if report.failed:
        for name in TEST_EXTRA:
            if f"No module named '{name}'" in report.longreprtext:
                _missing_for_collection.add(name)


def pytest_unconfigure(config):
    # After pytest's own summary, as the last line a newcomer reads.
    if _missing_for_collection:
        print(f"\ntest modules could not be imported without {', '.join(sorted(_missing_for_collection))}: install the "
              "test dependencies with  python -m pip install -e \".[test]\"  (README, Set up)")


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
