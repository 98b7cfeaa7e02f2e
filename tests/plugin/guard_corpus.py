"""Ways a test can reach an OpenAI-compatible server on this machine, for the guard corpus.

Each entry is the body of a test that sends at least one request to ``BASE`` (a base URL
ending in ``/v1`` that names the entry, so the stub server tells the entries apart). An entry
is ``BLOCKED`` (the guard refuses it: the test fails, or passes inside
``hookproof_guard.expect_blocked()``) or a ``GAP`` the plugin page lists (it reaches the server
with the guard on). tests/plugin/test_guard_corpus.py writes them into a pytester project,
with ``WORKERS`` beside them (the code child processes run).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    body: str
    blocked: bool
    requests: int = 1
    """How many requests the body sends when nothing stops it."""


def blocked(body: str, requests: int = 1) -> Entry:
    return Entry(body, blocked=True, requests=requests)


def gap(body: str, requests: int = 1) -> Entry:
    return Entry(body, blocked=False, requests=requests)


HEADER = """
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import threading
import urllib.request

import httpx
import openai
import pytest
import requests
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.language_models.llms import LLM
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_openai import ChatOpenAI, OpenAI, OpenAIEmbeddings

import corpus_workers as workers
from corpus_workers import chat, raw_chat

ROOT = {root!r}
"""

WORKERS = '''
import asyncio
import sys

import httpx


def chat(base):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="stub-model", base_url=base, api_key="test", max_retries=0)


def raw_chat(base):
    """A request made with httpx alone, as a provider of one's own would."""
    body = {"model": "stub-model", "messages": [{"role": "user", "content": "hi"}]}
    with httpx.Client(trust_env=False) as client:
        return client.post(base + "/chat/completions", json=body).json()


def call_chat(base):
    try:
        return chat(base).invoke("hi").content
    except Exception as error:  # the refusal travels back as text: no pickling trouble
        return repr(error)


CHILD = "import sys, corpus_workers; print(corpus_workers.call_chat(sys.argv[1]))"
# For python -I, which reads neither PYTHONPATH nor the current directory.
ISOLATED_CHILD = (
    "import sys; from langchain_openai import ChatOpenAI; ChatOpenAI(model='stub-model', "
    "base_url=sys.argv[1], api_key='t', max_retries=0).invoke('hi')"
)


def child(base, **options):
    import subprocess

    command = [sys.executable, "-c", CHILD, base]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, **options)


def in_pool(base, method):
    import multiprocessing

    with multiprocessing.get_context(method).Pool(1) as pool:
        return pool.apply(call_chat, (base,))
'''

_CHAT = "chat(BASE)"
_SWALLOWED = """
try:
    {call}
except Exception:
    pass
"""


def _swallowed(call: str) -> str:
    return _SWALLOWED.format(call=call)


ENTRIES: dict[str, Entry] = {
    # LangChain chat models, every way in
    "invoke": blocked(f"{_CHAT}.invoke('hi')"),
    "ainvoke": blocked(f"asyncio.run({_CHAT}.ainvoke('hi'))"),
    "stream": blocked(f"list({_CHAT}.stream('hi'))"),
    "astream": blocked(
        f"async def read():\n    return [c async for c in {_CHAT}.astream('hi')]\n"
        "asyncio.run(read())"
    ),
    "batch": blocked(f"{_CHAT}.batch(['hi', 'there'])", requests=2),
    "abatch": blocked(f"asyncio.run({_CHAT}.abatch(['hi', 'there']))", requests=2),
    "bind_tools": blocked(f"{_CHAT}.bind_tools([workers.call_chat]).invoke('hi')"),
    "generate_directly": blocked(f"{_CHAT}._generate([HumanMessage('hi')])"),
    "agenerate_directly": blocked(f"asyncio.run({_CHAT}._agenerate([HumanMessage('hi')]))"),
    "stream_directly": blocked(f"list({_CHAT}._stream([HumanMessage('hi')]))"),
    "generate_method": blocked(f"{_CHAT}.generate([[HumanMessage('hi')]])"),
    "with_fallbacks": blocked(
        f"{_CHAT}.with_fallbacks([FakeListChatModel(responses=['fake'])]).invoke('hi')"
    ),
    "try_except": blocked(_swallowed(f"{_CHAT}.invoke('hi')")),
    "create_agent": blocked(
        "from langchain.agents import create_agent\n"
        f"create_agent({_CHAT}, []).invoke({{'messages': [('user', 'hi')]}})"
    ),
    "subclass_overriding_invoke": blocked(
        """
class OwnInvoke(BaseChatModel):
    base: str

    def invoke(self, input, config=None, **kwargs):
        return AIMessage(raw_chat(self.base)["choices"][0]["message"]["content"])

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        raise NotImplementedError

    @property
    def _llm_type(self):
        return "own"

OwnInvoke(base=BASE).invoke("hi")
"""
    ),
    "subclass_own_generate": blocked(
        """
class OwnProvider(BaseChatModel):
    base: str

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        text = raw_chat(self.base)["choices"][0]["message"]["content"]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])

    @property
    def _llm_type(self):
        return "own"

OwnProvider(base=BASE).invoke("hi")
"""
    ),
    # completion models and embeddings
    "llm_invoke": blocked("OpenAI(model='stub-model', base_url=BASE, api_key='t').invoke('hi')"),
    "llm_stream_swallowed": blocked(
        _swallowed("list(OpenAI(model='stub-model', base_url=BASE, api_key='t').stream('hi'))")
    ),
    "llm_subclass": blocked(
        """
class OwnLLM(LLM):
    base: str

    def _call(self, prompt, stop=None, run_manager=None, **kwargs):
        return raw_chat(self.base)["choices"][0]["message"]["content"]

    @property
    def _llm_type(self):
        return "own"

OwnLLM(base=BASE).invoke("hi")
"""
    ),
    "embed_query": blocked(
        "OpenAIEmbeddings(base_url=BASE, api_key='t', check_embedding_ctx_length=False)"
        ".embed_query('hi')"
    ),
    "aembed_documents": blocked(
        "asyncio.run(OpenAIEmbeddings(base_url=BASE, api_key='t', "
        "check_embedding_ctx_length=False).aembed_documents(['a', 'b']))"
    ),
    "embeddings_subclass": blocked(
        """
class OwnEmbeddings(Embeddings):
    def embed_documents(self, texts):
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text):
        raw_chat(BASE)
        return [0.0]

OwnEmbeddings().embed_query("hi")
"""
    ),
    # threads and tasks the test starts and waits for
    "thread": blocked(
        f"thread = threading.Thread(target=lambda: {_CHAT}.invoke('hi'))\n"
        "thread.start()\nthread.join()"
    ),
    "thread_pool": blocked(
        "with concurrent.futures.ThreadPoolExecutor(1) as pool:\n"
        f"    pool.submit({_CHAT}.invoke, 'hi').exception()"
    ),
    "run_in_executor": blocked(
        "async def main():\n"
        f"    await asyncio.get_running_loop().run_in_executor(None, {_CHAT}.invoke, 'hi')\n"
        + _swallowed("asyncio.run(main())")
    ),
    "asyncio_task": blocked(
        "async def main():\n"
        f"    task = asyncio.create_task({_CHAT}.ainvoke('hi'))\n"
        "    await asyncio.gather(task, return_exceptions=True)\n"
        "asyncio.run(main())"
    ),
    # child processes the test starts
    "subprocess_run": blocked("workers.child(BASE)"),
    "subprocess_own_env": blocked("workers.child(BASE, env={'PATH': os.environ['PATH']})"),
    "os_system": blocked(
        "os.system(f'{sys.executable} -c \"{workers.CHILD}\" {BASE} > /dev/null 2>&1')"
    ),
    "asyncio_subprocess": blocked(
        "async def main():\n"
        "    process = await asyncio.create_subprocess_exec(\n"
        "        sys.executable, '-c', workers.CHILD, BASE, stdout=subprocess.DEVNULL\n"
        "    )\n"
        "    await process.wait()\n"
        "asyncio.run(main())"
    ),
    "pool_spawn": blocked("workers.in_pool(BASE, 'spawn')"),
    "pool_forkserver": blocked("workers.in_pool(BASE, 'forkserver')"),
    "pool_fork": blocked("workers.in_pool(BASE, 'fork')"),
    "process_pool_executor": blocked(
        "context = multiprocessing.get_context('spawn')\n"
        "with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:\n"
        "    pool.submit(workers.call_chat, BASE).result()"
    ),
    "os_fork": blocked(
        """
pid = os.fork()
if pid == 0:
    try:
        workers.call_chat(BASE)
    finally:
        os._exit(0)
os.waitpid(pid, 0)
"""
    ),
    # documented gaps: the code talks to the loopback server without a model
    "gap_openai_sdk": gap(
        "openai.OpenAI(base_url=BASE, api_key='t', max_retries=0).chat.completions.create(\n"
        "    model='stub-model', messages=[{'role': 'user', 'content': 'hi'}]\n)"
    ),
    "gap_chat_openai_client": gap(
        f"{_CHAT}.root_client.chat.completions.create(\n"
        "    model='stub-model', messages=[{'role': 'user', 'content': 'hi'}]\n)"
    ),
    "gap_httpx": gap("raw_chat(BASE)"),
    "gap_requests": gap(
        "requests.post(BASE + '/chat/completions', json={'model': 'm', 'messages': []})"
    ),
    "gap_urllib": gap(
        "request = urllib.request.Request(BASE + '/chat/completions', data=b'{}', method='POST')\n"
        "urllib.request.urlopen(request).read()"
    ),
    "gap_socket": gap(
        """
host, port = BASE.split("//")[1].split("/")[0].split(":")
path = "/" + BASE.split("//")[1].split("/", 1)[1] + "/chat/completions"
with socket.create_connection((host, int(port))) as sock:
    sock.sendall(f"POST {path} HTTP/1.0\\r\\nContent-Length: 2\\r\\n\\r\\n{{}}".encode())
    sock.recv(100)
"""
    ),
    "gap_isolated_python": gap(
        "subprocess.run([sys.executable, '-I', '-c', workers.ISOLATED_CHILD, BASE], "
        "capture_output=True, check=True)"
    ),
    "gap_not_python": gap(
        "subprocess.run(['curl', '-s', '-o', '/dev/null', '-d', '{}', "
        "BASE + '/chat/completions'], check=True)"
    ),
}
