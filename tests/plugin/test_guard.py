"""The real-model guard: every LangChain chat model and every socket off the machine.

LangChain models are pointed at a loopback server that answers like an OpenAI-compatible
provider and counts requests. With the guard on (as in every test here) each call path is
refused and the server sees nothing; the pytester tests show that the same paths do reach
it once a test opts out, so the 0 is meaningful. Socket refusals are tested without sending
a packet: the guard's reference to the real connect is replaced by a recorder first, and
only TEST-NET addresses (RFC 5737) are used.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import ipaddress
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from hookproof.errors import ConnectionBlocked, HookproofError, RealModelBlocked, UsageError
from hookproof.guard import RealModelBlocked as GuardRealModelBlocked
from hookproof.guard import _langchain as _guard_langchain
from hookproof.guard import _socket as _guard_socket
from hookproof.guard import block_real_models, check_model, current_policy
from hookproof.plugin import resolve_options
from tests.plugin import guard_calls
from tests.plugin.guard_calls import CALLS, chat_openai, requirements, stay_on_this_machine
from tests.plugin.openai_stub import REPLY, StubProvider, stub_provider
from tests.plugin.provider_sources import LANGCHAIN_PROVIDER, PROVIDER_MODEL, indented

TEST_NET = "192.0.2.1"  # reserved for documentation: never routed
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "OPENAI_PROXY")


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubProvider]:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    stay_on_this_machine(monkeypatch)
    with stub_provider() as server:
        yield server


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """Recorders in place of the real connect / connect_ex behind the guard's wrappers: they
    record and send nothing."""
    calls: list[tuple[str, Any]] = []
    for name in ("connect", "connect_ex"):
        wrapper = getattr(socket.socket, name)
        assert getattr(wrapper, "_hookproof_guarded", False), "the socket guard is not installed"
        monkeypatch.setattr(wrapper, "__wrapped__", _recorder(calls, name))
    return calls


def _recorder(calls: list[tuple[str, Any]], name: str) -> Any:
    return lambda sock, address: calls.append((name, address))


def provoked() -> contextlib.AbstractContextManager[list[str]]:
    """The guard in a block of the test's own, for refusals a test provokes on purpose: they
    are recorded there, not in the plugin's block, which fails a test that catches one."""
    return block_real_models()


def _needs(name: str) -> None:
    for package in requirements(name):
        pytest.importorskip(package, reason=f"install {package} to test this call path")


# -- LangChain chat models ------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(CALLS))
def test_every_call_path_of_a_langchain_model_is_refused(path: str, provider: StubProvider) -> None:
    _needs(path)
    with provoked(), pytest.raises(RealModelBlocked, match=r"'stub-model' \(ChatOpenAI\)"):
        CALLS[path](chat_openai(provider.base_url))
    assert provider.requests == []


def test_the_stub_provider_answers_when_the_guard_is_off(provider: StubProvider) -> None:
    _needs("invoke")
    with block_real_models(False):
        texts = CALLS["invoke"](chat_openai(provider.base_url)) + CALLS["stream"](
            chat_openai(provider.base_url)
        )
    assert texts == [REPLY, REPLY]
    assert provider.requests == ["POST /v1/chat/completions"] * 2


def test_the_langchain_message_names_the_langchain_replacements(provider: StubProvider) -> None:
    _needs("invoke")
    with provoked(), pytest.raises(RealModelBlocked) as caught:
        chat_openai(provider.base_url).invoke("hi")
    message = str(caught.value)
    assert message.startswith("hookproof: the test called model 'stub-model' (ChatOpenAI)")
    for hint in (
        "ScriptedChatModel or RecordingChatModel",
        "hookproof.adapters.langchain",
        "`hookproof_offline: ClassVar[bool] = True` on ChatOpenAI",
        "@pytest.mark.hookproof(allow_real_models=True)",
        "--hookproof-allow-real-models",
    ):
        assert hint in message


def test_langchain_fakes_and_hookproof_models_run_under_the_guard() -> None:
    pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run this")
    from langchain_core.language_models.fake_chat_models import (
        FakeListChatModel,
        GenericFakeChatModel,
    )

    from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel

    assert current_policy().blocking
    assert FakeListChatModel(responses=["fake"]).invoke("hi").content == "fake"
    generic = GenericFakeChatModel(messages=iter(["streamed"]))
    assert "".join(chunk.content for chunk in generic.stream("hi")) == "streamed"

    class FakeWithTools(GenericFakeChatModel):  # a common way to fake a tool-calling model
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    with_tools = FakeWithTools(messages=iter(["tools"])).bind_tools([guard_calls.lookup])
    assert with_tools.invoke("hi").content == "tools"
    recording = RecordingChatModel(inner=ScriptedChatModel(script=["scripted"]))
    assert recording.invoke("hi").content == "scripted"
    assert recording.last.messages[0].text == "hi"


def test_a_custom_model_declared_offline_runs_and_an_undeclared_one_does_not() -> None:
    pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run this")
    from langchain_core.language_models.chat_models import SimpleChatModel

    class Undeclared(SimpleChatModel):
        responses: list[str]

        def _call(self, *args: Any, **kwargs: Any) -> str:
            return self.responses[0]

        @property
        def _llm_type(self) -> str:
            return "undeclared"

    class Declared(Undeclared):
        hookproof_offline: ClassVar[bool] = True

    assert Declared(responses=["ok"]).invoke("hi").content == "ok"
    with provoked(), pytest.raises(RealModelBlocked, match=r"\(Undeclared\).*on Undeclared"):
        Undeclared(responses=["ok"]).invoke("hi")


def test_a_model_called_from_another_thread_is_refused(provider: StubProvider) -> None:
    _needs("invoke")
    errors: list[BaseException] = []

    def work() -> None:
        try:
            chat_openai(provider.base_url).invoke("hi")
        except RealModelBlocked as error:
            errors.append(error)

    thread = threading.Thread(target=work)
    with provoked() as refusals:
        thread.start()
        thread.join()
    assert len(errors) == 1
    assert refusals == [str(errors[0])]
    assert provider.requests == []


@pytest.mark.slow
def test_langchain_imported_after_the_guard_is_on_is_guarded_too(pytester: pytest.Pytester) -> None:
    pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run this")
    test_late_import = """
def test_late_import():
    assert "langchain_core.language_models.chat_models" not in sys.modules
    from langchain_core.language_models.chat_models import SimpleChatModel
"""
    body = indented(LANGCHAIN_PROVIDER + '\nProvider().invoke("hi")\n')
    pytester.makepyfile("import sys\n" + test_late_import + body)
    # In a process of its own: this one has imported langchain already.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*RealModelBlocked: hookproof: the test called model*Provider*"])


def test_the_langchain_guard_is_installed_once_from_any_number_of_threads() -> None:
    pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run this")
    from langchain_core.language_models.chat_models import BaseChatModel

    threads = [threading.Thread(target=_guard_langchain.install) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    finders = [f for f in sys.meta_path if type(f).__name__ == "_PatchOnImport"]
    assert len(finders) == 1
    for name in _guard_langchain.CHOKEPOINTS:
        method = BaseChatModel.__dict__[name]
        assert method._hookproof_guarded
        assert not getattr(method.__wrapped__, "_hookproof_guarded", False)  # wrapped once


# -- runtime and Eino models ----------------------------------------------------------------


def test_the_runtime_message_names_the_runtime_replacements() -> None:
    class ProviderModel:
        name = "provider-large"

        def invoke(self, request: object) -> object:
            raise AssertionError("the guard let the call through")

    with provoked(), pytest.raises(RealModelBlocked) as caught:
        check_model(ProviderModel())
    message = str(caught.value)
    assert message.startswith("hookproof: the test called model 'provider-large' (ProviderModel)")
    assert "ScriptedModel or RecordingModel (over a ScriptedModel) from hookproof.models" in message
    assert "`hookproof_offline = True` on ProviderModel" in message
    assert "hookproof.adapters.langchain" not in message


def test_real_model_blocked_is_public_and_one_class() -> None:
    assert RealModelBlocked is GuardRealModelBlocked
    assert issubclass(RealModelBlocked, HookproofError)


def test_the_guard_restores_the_previous_policy() -> None:
    before = current_policy()
    with block_real_models(False):
        assert not current_policy().blocking
        with block_real_models(allow_hosts=["DB.example"]):
            assert current_policy().allow_hosts == frozenset({"db.example"})
        assert not current_policy().blocking
    assert current_policy() == before


# -- sockets --------------------------------------------------------------------------------


def test_a_connection_off_the_machine_is_refused_before_it_starts(
    connects: list[tuple[str, Any]],
) -> None:
    with provoked(), socket.socket() as sock, pytest.raises(ConnectionBlocked) as caught:
        sock.connect((TEST_NET, 443))
    with provoked(), socket.socket() as sock, pytest.raises(ConnectionBlocked):
        sock.connect_ex((TEST_NET, 443))
    assert connects == []
    assert isinstance(caught.value, RealModelBlocked)
    assert isinstance(caught.value, ConnectionError)  # so clients close the socket
    message = str(caught.value)
    assert message.startswith(f"hookproof: the test tried to connect to {TEST_NET} (port 443)")
    for hint in (
        f"`hookproof_allow_hosts = {TEST_NET}`",
        f'@pytest.mark.hookproof(allow_hosts=["{TEST_NET}"])',
        "@pytest.mark.hookproof(allow_real_models=True)",
        "--hookproof-allow-real-models",
    ):
        assert hint in message


def test_clients_are_refused_too(connects: list[tuple[str, Any]]) -> None:
    async def open_connection() -> None:
        await asyncio.open_connection(TEST_NET, 80)

    httpx = pytest.importorskip("httpx", reason="install hookproof[providers] to run this")
    with provoked() as refusals:
        with pytest.raises(ConnectionBlocked):
            socket.create_connection((TEST_NET, 80), timeout=1)
        with pytest.raises(ConnectionBlocked):
            asyncio.run(open_connection())
        with httpx.Client(trust_env=False) as client, pytest.raises(httpx.ConnectError) as caught:
            client.get(f"http://{TEST_NET}/")
    assert str(caught.value).startswith(f"hookproof: the test tried to connect to {TEST_NET}")
    assert len(refusals) == 3  # httpx re-wraps the refusal: the guard's record still has it
    assert connects == []


@pytest.mark.parametrize(
    ("family", "host"),
    [
        (socket.AF_INET, "127.0.0.1"),
        (socket.AF_INET, "127.8.9.10"),
        (socket.AF_INET, "localhost"),
        (socket.AF_INET6, "::1"),
        (socket.AF_INET6, "::ffff:127.0.0.1"),
    ],
)
def test_loopback_is_allowed(family: int, host: str) -> None:
    _guard_socket.check_address(family, (host, 80))


def test_a_loopback_server_is_reached(provider: StubProvider) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", provider.port, timeout=10)
    try:
        connection.request("GET", "/health")
        assert connection.getresponse().status == 404
    finally:
        connection.close()
    assert provider.requests == ["GET /health"]


def test_unix_sockets_are_allowed(tmp_path: Path) -> None:
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix-domain sockets on this platform")
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX) as server, socket.socket(socket.AF_UNIX) as client:
        server.bind(path)
        server.listen()
        client.connect(path)
        assert client.getpeername() == path


def test_allowed_hosts_pass(
    connects: list[tuple[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_guard_socket, "_addresses_of", _resolved)
    with block_real_models(allow_hosts=[TEST_NET, "db.ci.internal"]), socket.socket() as sock:
        sock.connect((TEST_NET, 5432))
        sock.connect(("db.ci.internal", 5432))
        sock.connect_ex(("192.0.2.7", 5432))  # what db.ci.internal resolves to
        with pytest.raises(RealModelBlocked, match=r"192\.0\.2\.8"):
            sock.connect(("192.0.2.8", 5432))
    assert connects == [
        ("connect", (TEST_NET, 5432)),
        ("connect", ("db.ci.internal", 5432)),
        ("connect_ex", ("192.0.2.7", 5432)),
    ]


def _resolved(name: str) -> frozenset[Any]:
    """Stands in for the resolver: no name is ever looked up."""
    assert name == "db.ci.internal"
    return frozenset({ipaddress.ip_address("192.0.2.7")})


def test_with_the_guard_off_connections_go_through(connects: list[tuple[str, Any]]) -> None:
    with block_real_models(False), socket.socket() as sock:
        sock.connect((TEST_NET, 443))
    assert connects == [("connect", (TEST_NET, 443))]


def test_the_guard_is_installed_once_and_reinstalled_if_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    guarded = socket.socket.connect
    with block_real_models():
        assert socket.socket.connect is guarded
    monkeypatch.setattr(socket.socket, "connect", guarded.__wrapped__)
    with block_real_models():
        assert socket.socket.connect is not guarded
        assert getattr(socket.socket.connect, "_hookproof_guarded", False)


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """A resolver of the test's own in place of getaddrinfo: numeric hosts are read as the
    real one reads them, without a lookup; the names in the returned dict resolve to their
    addresses; any other name fails. Nothing ever leaves the machine."""
    names: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host in names:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 0)) for ip in names[host]]
        return real(host, port, flags=socket.AI_NUMERICHOST)  # raises gaierror for a name

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(_guard_socket, "_RESOLVED", {}, raising=False)
    return names


@pytest.mark.parametrize(
    ("family", "host"),
    [
        (socket.AF_INET, "127.1"),  # the short form connect reads as 127.0.0.1
        (socket.AF_INET, "2130706433"),
        (socket.AF_INET, "0.0.0.0"),  # the unspecified addresses connect to this machine
        (socket.AF_INET6, "::"),
        (socket.AF_INET6, "::ffff:0.0.0.0"),
        (socket.AF_INET, "localhost."),
        (socket.AF_INET, "LocalHost"),
        (socket.AF_INET6, "ip6-localhost"),
        (socket.AF_INET, socket.gethostname()),
    ],
)
def test_hosts_that_stay_on_this_machine_are_allowed(
    family: int, host: str, resolver: dict[str, list[str]]
) -> None:
    resolver.update({"ip6-localhost": ["::1"], socket.gethostname(): ["127.0.1.1"]})
    _guard_socket.check_address(family, (host, 80))


@pytest.mark.parametrize(
    ("host", "addresses"),
    [
        ("api.provider.example", ["192.0.2.9"]),
        ("mixed.example", ["127.0.0.1", "192.0.2.9"]),  # one address leaves the machine
        ("nowhere.example", None),  # does not resolve: refused, fail closed
        ("10.1", None),  # 10.0.0.1
    ],
)
def test_names_resolving_off_the_machine_are_refused(
    host: str, addresses: list[str] | None, resolver: dict[str, list[str]]
) -> None:
    if addresses is not None:
        resolver[host] = addresses
    with provoked(), pytest.raises(ConnectionBlocked, match=f"connect to {host} "):
        _guard_socket.check_address(socket.AF_INET, (host, 443))


def test_allowed_networks_pass(connects: list[tuple[str, Any]]) -> None:
    with block_real_models(allow_hosts=["192.0.2.0/29", "2001:DB8::/32"]) as refusals:
        with socket.socket() as sock:
            sock.connect(("192.0.2.7", 5432))
            with pytest.raises(ConnectionBlocked, match=r"192\.0\.2\.8"):
                sock.connect(("192.0.2.8", 5432))
        with socket.socket(socket.AF_INET6) as sock:
            sock.connect(("2001:db8::7", 5432, 0, 0))
    assert [address[0] for _, address in connects] == ["192.0.2.7", "2001:db8::7"]
    assert len(refusals) == 1


def test_a_name_resolving_into_allowed_addresses_passes(
    connects: list[tuple[str, Any]], resolver: dict[str, list[str]]
) -> None:
    resolver["db"] = ["192.0.2.7", "127.0.0.1"]
    with block_real_models(allow_hosts=["192.0.2.0/29"]), socket.socket() as sock:
        sock.connect(("db", 5432))
    assert connects == [("connect", ("db", 5432))]


def test_a_failed_lookup_of_an_allowed_name_is_tried_again(
    connects: list[tuple[str, Any]], resolver: dict[str, list[str]]
) -> None:
    """A service that does not resolve yet (still starting) is allowed once it does."""
    with block_real_models(allow_hosts=["db.starting"]) as refusals, socket.socket() as sock:
        with pytest.raises(ConnectionBlocked):
            sock.connect(("192.0.2.7", 5432))
        resolver["db.starting"] = ["192.0.2.7"]
        sock.connect(("192.0.2.7", 5432))
    assert connects == [("connect", ("192.0.2.7", 5432))]
    assert len(refusals) == 1


# -- options ------------------------------------------------------------------------------


def test_allow_hosts_accumulate_across_sources() -> None:
    options = resolve_options(
        ini={"allow_hosts": "db, cache\n10.0.0.7"},
        markers=[{"allow_hosts": ["cache", "queue"]}, {"allow_hosts": "search"}],
    )
    assert options.allow_hosts == ("db", "cache", "10.0.0.7", "queue", "search")
    assert resolve_options(markers=[{"allow_hosts": {"b", "a"}}]).allow_hosts == ("a", "b")
    assert resolve_options().allow_hosts == ()


def test_allow_hosts_of_the_wrong_kind_is_explained() -> None:
    with pytest.raises(UsageError, match=r"allow_hosts=5, which is not a list of hosts"):
        resolve_options(markers=[{"allow_hosts": 5}])


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("db:5432", "has a port"),
        ("[fd00::7]:5432", "has a port"),
        ("[fd00::7]", "has a port"),
        ("http://cache", "is a URL"),
        ("https://api.provider.example/v1", "is a URL"),
        ("10.0.0.0/33", "is not an IP network"),
        ("db/primary", "is not an IP network"),
    ],
)
def test_allow_hosts_entries_that_could_never_match_are_refused(entry: str, reason: str) -> None:
    with pytest.raises(UsageError, match=rf"@pytest.mark.hookproof gives .*{reason}") as caught:
        resolve_options(markers=[{"allow_hosts": ["db", entry]}])
    assert f"allow_hosts entry {entry!r}" in str(caught.value)
    assert "Give " in str(caught.value)  # says how to fix it
    with pytest.raises(UsageError, match=reason), block_real_models(allow_hosts=[entry]):
        pass


def test_allow_hosts_take_names_addresses_and_networks() -> None:
    entries = ["db", "10.0.0.7", "fd00::7", "10.0.0.0/8", "fd00::/8", "10.1.2.3/16"]
    assert resolve_options(ini={"allow_hosts": " ".join(entries)}).allow_hosts == tuple(entries)


# -- the plugin turns the guard on and off --------------------------------------------------

CHILD_CONFTEST = """
import pytest
from guard_calls import stay_on_this_machine

@pytest.fixture(autouse=True)
def _stay_on_this_machine(monkeypatch):
    stay_on_this_machine(monkeypatch)
"""

CHILD_CALLS = """
import pytest
from guard_calls import CALLS, chat_openai
{header}
@pytest.mark.parametrize("path", sorted(CALLS))
def test_call(path):
    assert set(CALLS[path](chat_openai({base_url!r}))) == {{"stub reply"}}
"""
OPT_OUT = "pytestmark = pytest.mark.hookproof(allow_real_models=True)\n"


def _write_call_project(pytester: pytest.Pytester, **files: tuple[StubProvider, str]) -> None:
    for path in CALLS:
        _needs(path)
    pytester.makepyfile(guard_calls=Path(guard_calls.__file__).read_text())
    pytester.makeconftest(CHILD_CONFTEST)
    for name, (provider, header) in files.items():
        source = CHILD_CALLS.format(base_url=provider.base_url, header=header)
        pytester.makepyfile(**{name: source})


def _requests_of_every_call() -> list[str]:
    per_call = [2 if path.endswith("batch") else 1 for path in CALLS]
    return ["POST /v1/chat/completions"] * sum(per_call)


def test_calls_reach_the_provider_only_from_a_test_that_opts_out(
    pytester: pytest.Pytester, provider: StubProvider
) -> None:
    with stub_provider() as opted_provider:
        _write_call_project(
            pytester,
            test_guarded=(provider, ""),
            test_opted_out=(opted_provider, OPT_OUT),
        )
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--tb=line")
    result.assert_outcomes(failed=len(CALLS), passed=len(CALLS))
    result.stdout.fnmatch_lines(["*RealModelBlocked: hookproof: the test called model*"])
    assert provider.requests == []
    assert opted_provider.requests == _requests_of_every_call()


def test_calls_reach_the_provider_with_the_command_line_opt_out(
    pytester: pytest.Pytester, provider: StubProvider
) -> None:
    _write_call_project(pytester, test_guarded=(provider, ""))
    arguments = ("-p", "no:cacheprovider", "--hookproof-allow-real-models")
    pytester.runpytest_inprocess(*arguments).assert_outcomes(passed=len(CALLS))
    assert provider.requests == _requests_of_every_call()


def test_allow_hosts_from_the_ini_file_and_markers(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhookproof_allow_hosts = 192.0.2.1, 192.0.2.2\n")
    pytester.makepyfile(
        """
import socket
import pytest
from hookproof.guard import current_policy
from hookproof.errors import ConnectionBlocked

@pytest.fixture
def connects(monkeypatch):
    calls = []
    assert getattr(socket.socket.connect, "_hookproof_guarded", False)
    monkeypatch.setattr(socket.socket.connect, "__wrapped__", lambda s, a: calls.append(a[0]))
    return calls

def attempt(*hosts):
    with socket.socket() as sock:
        for host in hosts:
            sock.connect((host, 5432))

def test_ini(connects):
    attempt("192.0.2.1", "192.0.2.2")
    assert connects == ["192.0.2.1", "192.0.2.2"]

def test_ini_refuses_other_hosts(connects):
    attempt("192.0.2.3")

@pytest.mark.hookproof(allow_hosts="192.0.2.3")
def test_a_marker_adds_to_the_ini(connects):
    attempt("192.0.2.1", "192.0.2.3")
    assert connects == ["192.0.2.1", "192.0.2.3"]

@pytest.mark.hookproof(allow_hosts="192.0.2.3")
def test_a_marker_refuses_other_hosts(connects):
    attempt("192.0.2.4")

@pytest.mark.hookproof(allow_real_models=True)
def test_the_opt_out_turns_the_socket_line_off():
    assert not current_policy().blocking
"""
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--tb=line")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*ConnectionBlocked: hookproof: the test tried to connect to 192.0.2.3 *",
            "*ConnectionBlocked: hookproof: the test tried to connect to 192.0.2.4 *",
            "FAILED *::test_ini_refuses_other_hosts*",
            "FAILED *::test_a_marker_refuses_other_hosts*",
        ]
    )


SCOPES = (
    """
import unittest
import pytest
"""
    + PROVIDER_MODEL
    + """
def call_provider():
    create_agent(ProviderModel()).invoke({"messages": [("user", "hi")]})

@pytest.fixture(scope="session")
def session_setup():
    call_provider()

@pytest.fixture(scope="module")
def module_teardown():
    yield
    call_provider()

@pytest.fixture(scope="class")
def class_setup():
    call_provider()

def test_session(session_setup):
    pass

def test_module(module_teardown):
    pass

class TestClass:
    def test_class(self, class_setup):
        pass

class TestUnittest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        call_provider()

    def test_unit(self):
        pass
"""
)

SETUP_MODULE = """
from test_scopes import call_provider

def setup_module():
    call_provider()

def test_plain():
    pass
"""


def test_fixtures_of_every_scope_and_xunit_setups_are_guarded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # whole messages in the short summary
    monkeypatch.delenv("CI", raising=False)  # under CI pytest prints them over several lines
    pytester.makepyfile(test_scopes=SCOPES, test_setup_module=SETUP_MODULE)
    # In process: each phase of the inner tests puts its own policy in place and restores ours.
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rE")
    result.assert_outcomes(passed=1, errors=5)
    blocked = " - hookproof.errors.RealModelBlocked: hookproof: the test called model 'provider'*"
    result.stdout.fnmatch_lines(
        [
            "ERROR test_scopes.py::test_session" + blocked,
            "ERROR test_scopes.py::TestClass::test_class" + blocked,
            "ERROR test_scopes.py::TestUnittest::test_unit" + blocked,  # setUpClass
            "ERROR test_scopes.py::TestUnittest::test_unit" + blocked,  # the module's teardown
            "ERROR test_setup_module.py::test_plain" + blocked,
        ],
        consecutive=True,
    )
    opted_out = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--hookproof-allow-real-models"
    )
    opted_out.assert_outcomes(passed=5)


SWALLOWED = (
    """
import socket
import pytest
from langchain_core.language_models.chat_models import SimpleChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
"""
    + LANGCHAIN_PROVIDER
    + """
@pytest.fixture
def no_traffic(monkeypatch):
    # The real connect is never reached, guard or no guard: nothing leaves the machine.
    calls = []
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: calls.append(address))
    return calls

@pytest.fixture
def swallowing_fixture():
    try:
        Provider().invoke("hi")
    except Exception:
        pass

def test_with_fallbacks():
    reply = Provider().with_fallbacks([FakeListChatModel(responses=["fake"])]).invoke("hi")
    assert reply.content in ("live", "fake")

def test_try_except():
    try:
        Provider().invoke("hi")
    except Exception:
        pass

def test_socket(no_traffic):
    try:
        with socket.socket() as sock:
            sock.connect(("192.0.2.1", 80))
    except OSError:
        pass

def test_in_a_fixture(swallowing_fixture):
    pass

def test_failing_on_its_own():
    try:
        Provider().invoke("hi")
    except Exception:
        pass
    assert False, "its own failure"
"""
)


def test_a_refusal_the_code_under_test_caught_still_fails_the_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run this")
    monkeypatch.setenv("COLUMNS", "1000")  # whole messages in the short summary
    monkeypatch.delenv("CI", raising=False)  # under CI pytest prints them over several lines
    pytester.makepyfile(test_swallowed=SWALLOWED)
    # In process: the inner test's own replacement of socket.socket.connect (which the guard
    # wraps at its next phase) is undone at its teardown, leaving this process's guard as it was.
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rfE")
    result.assert_outcomes(failed=4, errors=1)
    caught = (
        " - hookproof.errors.RealModelBlocked: hookproof: during the test's {}, a real model "
        "call or connection was refused and the error was caught by the code under test. *"
    )
    result.stdout.fnmatch_lines(
        [
            "FAILED *::test_with_fallbacks" + caught.format("call"),
            "FAILED *::test_try_except" + caught.format("call"),
            "FAILED *::test_socket" + caught.format("call"),
            "FAILED *::test_failing_on_its_own - AssertionError: its own failure*",
            "ERROR *::test_in_a_fixture" + caught.format("setup"),
        ],
        consecutive=True,
    )
    opted_out = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--hookproof-allow-real-models"
    )
    opted_out.assert_outcomes(passed=4, failed=1)


def test_guard_follows_the_closest_marker_and_covers_threads(pytester: pytest.Pytester) -> None:
    header = """
import threading
import pytest
"""
    pytester.makepyfile(
        header
        + PROVIDER_MODEL
        + """
def run():
    return create_agent(ProviderModel()).invoke({"messages": [("user", "hi")]}).text

@pytest.mark.hookproof(allow_real_models=True)
class TestAllowed:
    @pytest.mark.hookproof(allow_real_models=False)
    def test_closest_marker_blocks(self):
        run()

def test_threads_are_blocked_too():
    errors = []
    def work():
        try:
            run()
        except Exception as error:
            errors.append(type(error).__name__)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == ["RealModelBlocked"]
"""
    )
    # In process: the thread's refusal goes to the inner test's phase, running meanwhile.
    result = pytester.runpytest_inprocess()
    # The thread's refusal is blocked, and, caught there, still fails the test.
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*RealModelBlocked*",
            "*RealModelBlocked: hookproof: during the test's call*caught by the code under test*",
            "FAILED *test_closest_marker_blocks*",
            "FAILED *test_threads_are_blocked_too*",
        ]
    )
