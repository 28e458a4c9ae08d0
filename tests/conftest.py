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
