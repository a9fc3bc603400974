"""Embedding backends on this CPU: numpy (the default adapter), torch threads, ONNX Runtime
fp32 and int8.

Not a test and not run by CI. Run it by hand on the machine you care about:

    python -m bench.embed_backends            # full run, appends to docs/benchmarks.md
    python -m bench.embed_backends --quick    # smoke run: tiny counts, writes nothing
    python -m bench.embed_backends --busy 1   # with one CPU-burning process beside it

ONNX rows need ``pip install onnxruntime onnx``; without them (or with ``--no-onnx``) they
are skipped. The model is exported from the bundled weights with ``torch.onnx.export`` (no
hub download) into a temporary folder. Configurations are measured in interleaved rounds
and the median of the rounds is reported, so that a neighbour's load drifting during the
run hits all alike. Each figure is given per second of wall time and per second of CPU
time (all the process's threads): on a shared box the wall figure says what a user waits,
the CPU figure what the work costs, which neighbours move less.
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing as mp
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Embedding backends"

_WORDS = (
    "the of and to in is that for it as with was on be by this are or at from have an they "
    "which one you were her all she there would their we him been has when who will more no "
    "if out so said what up its about into than them can only other new some could time these "
    "two may then do first any my now such like our over man me even most made after also did "
    "many before must through back years where much your way well down should because each "
    "just those people how too little state good very make world still own see men work long "
    "get here between both life being under never day same another know while last might us "
    "great old year off come since against go came right used take three invoice contract "
    "quarterly revenue customer meeting budget roadmap release incident policy onboarding"
).split()

QUERIES = [
    "the cat sat on the mat",
    "what did we decide about the pricing change?",
    "quarterly revenue grew 4%",
    "who owns the onboarding checklist",
    "incident report for the March outage",
    "how do I request a new laptop",
    "contract renewal terms with the main supplier",
    "Wer ist für die Buchhaltung zuständig?",
]


def make_text(rng: random.Random, chars: int) -> str:
    words: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(_WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:chars]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _burn() -> None:
    while True:
        pass


# --- backends -------------------------------------------------------------------------


Encode = Callable[[Sequence[str]], np.ndarray]


def load_torch() -> Any:
    from sentence_transformers import SentenceTransformer

    from orgbrain.adapters.embed_minilm import bundled_model_dir

    return SentenceTransformer(str(bundled_model_dir()), device="cpu", local_files_only=True)


def torch_encoder(model: Any, threads: int, batch_size: int) -> Encode:
    import torch

    def encode(texts: Sequence[str]) -> np.ndarray:
        torch.set_num_threads(threads)
        out = model.encode(
            list(texts),
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32)

    return encode


def export_onnx(model: Any, folder: Path) -> Path:
    """Export BERT plus mean pooling plus L2 normalisation as one fp32 graph."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            hidden = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    wrapper = Pooled(model[0].auto_model).eval()
    sample = model.tokenizer(
        ["a short one", "a somewhat longer second sample text"], padding=True, return_tensors="pt"
    )
    names = ["input_ids", "attention_mask", "token_type_ids"]
    path = folder / "minilm-fp32.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            wrapper,
            tuple(sample[n] for n in names),
            str(path),
            dynamo=False,
            input_names=names,
            output_names=["embedding"],
            dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names}, "embedding": {0: "batch"}},
            opset_version=17,
        )
    return path


def quantize_int8(fp32: Path) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out = fp32.with_name("minilm-int8.onnx")
    quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8)
    return out


def onnx_encoder(model: Any, path: Path, threads: int, batch_size: int) -> Encode:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    tokenizer = model.tokenizer
    max_len = int(model.max_seq_length)

    def encode(texts: Sequence[str]) -> np.ndarray:
        # Same as sentence-transformers: longest first, so each batch pads little.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            enc = tokenizer(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=max_len,
                return_tensors="np",
            )
            feed = {
                n: enc[n].astype(np.int64)
                for n in ("input_ids", "attention_mask", "token_type_ids")
            }
            out[idx] = session.run(None, feed)[0]
        return out

    return encode


def numpy_encoder(workers: int, batch_tokens: int) -> Encode:
    """The numpy forward pass alone, BLAS on one thread, batches over ``workers`` threads."""
    from threadpoolctl import threadpool_limits

    from orgbrain.adapters.embed_minilm import bundled_model_dir
    from orgbrain.adapters.minilm_numpy import MiniLMNumpy

    model = MiniLMNumpy.from_folder(bundled_model_dir())

    def encode(texts: Sequence[str]) -> np.ndarray:
        with threadpool_limits(1, user_api="blas"):
            return model.encode(texts, batch_tokens=batch_tokens, workers=workers)

    return encode


def numpy_blas_encoder(threads: int, batch_tokens: int) -> Encode:
    """The numpy forward pass with BLAS's own threads instead of batch workers."""
    from threadpoolctl import threadpool_limits

    from orgbrain.adapters.embed_minilm import bundled_model_dir
    from orgbrain.adapters.minilm_numpy import MiniLMNumpy

    model = MiniLMNumpy.from_folder(bundled_model_dir())

    def encode(texts: Sequence[str]) -> np.ndarray:
        with threadpool_limits(threads, user_api="blas"):
            return model.encode(texts, batch_tokens=batch_tokens, workers=1)

    return encode


def adapter_encoder(batch_size: int) -> Encode:
    from orgbrain.adapters.embed_minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder(batch_size=batch_size)
    return embedder.embed


def torch_adapter_encoder(batch_size: int) -> Encode:
    from orgbrain.adapters.embed_minilm_torch import TorchMiniLMEmbedder

    embedder = TorchMiniLMEmbedder(batch_size=batch_size)
    return embedder.embed


# --- measuring ------------------------------------------------------------------------


@dataclass
class Config:
    label: str
    encode: Encode
    single_ms: list[float] = field(default_factory=list)
    single_cpu_ms: list[float] = field(default_factory=list)
    batch_tps: list[float] = field(default_factory=list)
    batch_cpu_tps: list[float] = field(default_factory=list)
    small_tps: list[float] = field(default_factory=list)
    small_cpu_tps: list[float] = field(default_factory=list)
    cos_mean: float | None = None
    cos_min: float | None = None


def time_single(encode: Encode, queries: Sequence[str], reps: int) -> tuple[float, float]:
    """Median milliseconds for one query: wall, CPU."""
    walls, cpus = [], []
    for i in range(reps):
        q = [queries[i % len(queries)]]
        c, t = time.process_time(), time.perf_counter()
        encode(q)
        walls.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - c) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def time_batch(encode: Encode, texts: Sequence[str]) -> tuple[float, float]:
    """Texts per second of wall time, and per second of CPU time."""
    c, t = time.process_time(), time.perf_counter()
    encode(texts)
    return len(texts) / (time.perf_counter() - t), len(texts) / (time.process_time() - c)


def agreement(reference: np.ndarray, other: np.ndarray) -> tuple[float, float]:
    cos = (reference * other).sum(axis=1)
    return float(cos.mean()), float(cos.min())


def run(args: argparse.Namespace) -> tuple[list[Config], dict[str, str]]:
    import torch

    cores = usable_cores()
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rng = random.Random(7)
    batch = [make_text(rng, args.chars) for _ in range(args.batch)]
    short = [make_text(rng, 70) for _ in range(args.batch)]
    model = load_torch()

    configs = [
        Config(f"torch, 1 thread, bs {args.batch_size}", torch_encoder(model, 1, args.batch_size)),
        Config(
            f"torch, {cores} threads, bs {args.batch_size}",
            torch_encoder(model, cores, args.batch_size),
        ),
    ]
    for bs in args.extra_batch_sizes:
        configs.append(Config(f"torch, {cores} threads, bs {bs}", torch_encoder(model, cores, bs)))
    configs.append(
        Config(
            f"torch adapter (policy), bs {args.batch_size}", torch_adapter_encoder(args.batch_size)
        )
    )
    tokens = args.batch_tokens
    configs += [
        Config(f"numpy, 1 thread, {tokens} tokens", numpy_encoder(1, tokens)),
        Config(f"numpy, {cores} batch threads, {tokens} tokens", numpy_encoder(cores, tokens)),
        Config(f"numpy, {cores} BLAS threads, {tokens} tokens", numpy_blas_encoder(cores, tokens)),
        Config(f"numpy adapter (policy), bs {args.batch_size}", adapter_encoder(args.batch_size)),
    ]

    have_onnx = not args.no_onnx
    try:
        import onnx  # noqa: F401
        import onnxruntime
    except ImportError:
        have_onnx = False
        print("onnxruntime/onnx not installed: ONNX rows skipped")
    tmp = tempfile.TemporaryDirectory(prefix="orgbrain-onnx-")
    if have_onnx:
        fp32 = export_onnx(model, Path(tmp.name))
        int8 = quantize_int8(fp32)
        for precision, path in (("fp32", fp32), ("int8", int8)):
            for threads in sorted({1, cores}):
                configs.append(
                    Config(
                        f"onnx {precision}, {threads} thread{'s' if threads > 1 else ''}",
                        onnx_encoder(model, path, threads, args.batch_size),
                    )
                )

    reference = configs[0].encode(list(QUERIES) + batch)
    for c in configs:
        c.encode(QUERIES[:2])  # warm up
        c.cos_mean, c.cos_min = agreement(reference, c.encode(list(QUERIES) + batch))

    burners = [mp.Process(target=_burn, daemon=True) for _ in range(args.busy)]
    for p in burners:
        p.start()
    try:
        for r in range(args.rounds):
            for c in configs:
                wall, cpu = time_single(c.encode, QUERIES, args.reps)
                c.single_ms.append(wall)
                c.single_cpu_ms.append(cpu)
                wall, cpu = time_batch(c.encode, batch)
                c.batch_tps.append(wall)
                c.batch_cpu_tps.append(cpu)
                wall, cpu = time_batch(c.encode, short)
                c.small_tps.append(wall)
                c.small_cpu_tps.append(cpu)
            print(f"round {r + 1}/{args.rounds} done", flush=True)
    finally:
        for p in burners:
            p.terminate()
        tmp.cleanup()

    env = {
        "date": dt.date.today().isoformat(),
        "cpu": cpu_model(),
        "nproc": str(cores),
        "load": f"{load_start} at the start, "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + " at the end",
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__ if have_onnx else "not run",
        "numpy": np.__version__,
        "busy": str(args.busy),
        "argv": " ".join(sys.argv[1:]),
        "texts": f"single: one of {len(QUERIES)} short queries x {args.reps} reps; "
        f"batch: {args.batch} texts of {args.chars} chars; short: {args.batch} of 70 chars; "
        f"{args.rounds} interleaved rounds, medians",
    }
    return configs, env


def table(configs: list[Config]) -> list[str]:
    med = statistics.median
    base_single = med(configs[0].single_cpu_ms)
    base_batch = med(configs[0].batch_cpu_tps)
    lines = [
        "| backend | one query, ms wall / CPU (p50) | ~1000-char texts/s, wall / per CPU-s "
        "| 70-char texts/s, wall / per CPU-s | CPU vs torch 1-thread (query / batch) "
        "| cosine to torch: mean / min |",
        "|---|---|---|---|---|---|",
    ]
    for c in configs:
        lines.append(
            f"| {c.label} | {med(c.single_ms):.1f} / {med(c.single_cpu_ms):.1f} "
            f"| {med(c.batch_tps):.1f} / {med(c.batch_cpu_tps):.1f} "
            f"| {med(c.small_tps):.0f} / {med(c.small_cpu_tps):.0f} "
            f"| {base_single / med(c.single_cpu_ms):.2f}x / "
            f"{med(c.batch_cpu_tps) / base_batch:.2f}x "
            f"| {c.cos_mean:.7f} / {c.cos_min:.7f} |"
        )
    return lines


def append_doc(lines: list[str], env: dict[str, str]) -> None:
    """Add a dated block at the end of this bench's section, creating either if absent."""
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    block = [
        f"### {env['date']}: {env['cpu']}, nproc {env['nproc']}",
        "",
        f"`python -m bench.embed_backends {env['argv']}`; numpy {env['numpy']}, "
        f"torch {env['torch']}, onnxruntime {env['onnxruntime']}; "
        f"load average (1, 5, 15 min) {env['load']}; "
        f"CPU burners beside it: {env['busy']}. {env['texts']}.",
        "",
        *lines,
        "",
    ]
    if SECTION not in text:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\nWritten by `bench/embed_backends.py`.\n"
    head, _, rest = text.partition(SECTION)
    next_section = rest.find("\n## ")
    body, tail = (rest, "") if next_section < 0 else (rest[:next_section], rest[next_section:])
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(head + SECTION + body.rstrip("\n") + "\n\n" + "\n".join(block) + tail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke run; writes nothing")
    parser.add_argument("--busy", type=int, default=0, help="CPU-burning processes beside it")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=30, help="single-query calls per round")
    parser.add_argument("--batch", type=int, default=64, help="texts per batch")
    parser.add_argument("--chars", type=int, default=1000, help="characters per batch text")
    parser.add_argument("--batch-size", type=int, default=64, help="encoder batch size")
    parser.add_argument(
        "--batch-tokens", type=int, default=2048, help="numpy: padded tokens per batch"
    )
    parser.add_argument("--no-onnx", action="store_true", help="skip the ONNX rows")
    parser.add_argument(
        "--extra-batch-sizes", type=lambda s: [int(x) for x in s.split(",") if x], default=[16]
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.reps, args.batch, args.extra_batch_sizes = 1, 3, 4, []
        args.no_write = True

    configs, env = run(args)
    lines = table(configs)
    print()
    print(f"{env['date']}  {env['cpu']}  nproc {env['nproc']}  load {env['load']}")
    print("\n".join(lines))
    if not args.no_write:
        append_doc(lines, env)
        print(f"\nappended to {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
