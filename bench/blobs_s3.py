"""Blobs on S3: boto3 against obstore on the same server, the numbers that chose the S3
adapter's client, then the adapter itself (``S3BlobStore``).

    python -m bench.blobs_s3 [--mib 64] [--ranges 200] [--rounds 3] [--no-write]

A real s3rver on loopback (``scripts/s3rver``, started and stopped here) unless
``--endpoint`` names another server (credentials then come from the standard AWS
variables). Each client, in turn, round after round so that the machine's noise falls on
both alike:

- **put**: a ``--mib`` MiB blob streamed in 64 KiB chunks, a multipart upload of 8 MiB
  parts (memory bounded by a part); MiB/s, the median round.
- **get**: the same blob read whole as a stream; MiB/s, the median round.
- **range**: ``--ranges`` reads of 4 KiB at random offsets (what a citation reads); the
  latency of one, p50 and p95.
- **small put**: 16 KiB blobs (a note's size) in one request; the latency of one.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tests.s3rver import running_s3rver, s3_env

from bench._common import append_results, percentile

MIB = 1 << 20
PART = 8 * MIB
CHUNK = 64 * 1024
RANGE = 4096
SMALL = 16 * 1024


@dataclass
class Client:
    """The four operations the bench times, over one library."""

    name: str
    put_stream: Callable[[str, Iterator[bytes]], object]
    put_small: Callable[[str, bytes], object]
    read_all: Callable[[str], int]
    read_range: Callable[[str, int, int], bytes]
    put_mibs: list[float] = field(default_factory=list)
    get_mibs: list[float] = field(default_factory=list)
    range_ms: list[float] = field(default_factory=list)
    small_ms: list[float] = field(default_factory=list)


def boto3_client(endpoint: str, bucket: str) -> Client:
    import boto3
    from botocore.config import Config

    s3: Any = boto3.client(
        "s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"})
    )

    def put_stream(key: str, chunks: Iterator[bytes]) -> None:
        upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
        parts, buf = [], bytearray()

        def send() -> None:
            n = len(parts) + 1
            etag = s3.upload_part(
                Bucket=bucket, Key=key, UploadId=upload, PartNumber=n, Body=bytes(buf)
            )["ETag"]
            parts.append({"PartNumber": n, "ETag": etag})
            buf.clear()

        for chunk in chunks:
            buf += chunk
            if len(buf) >= PART:
                send()
        if buf or not parts:
            send()
        s3.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": parts}
        )

    def read_all(key: str) -> int:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"]
        return sum(len(c) for c in body.iter_chunks(CHUNK))

    def read_range(key: str, start: int, end: int) -> bytes:
        got = s3.get_object(Bucket=bucket, Key=key, Range=f"bytes={start}-{end - 1}")
        data: bytes = got["Body"].read()
        return data

    return Client(
        "boto3",
        put_stream,
        lambda k, d: s3.put_object(Bucket=bucket, Key=k, Body=d),
        read_all,
        read_range,
    )


def obstore_client(endpoint: str, bucket: str) -> Client:
    import obstore
    from obstore.store import S3Store

    store = S3Store(
        bucket,
        endpoint=endpoint,
        region=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        virtual_hosted_style_request=False,
        client_options={"allow_http": True},
    )

    def read_all(key: str) -> int:
        return sum(len(c) for c in obstore.get(store, key).stream(min_chunk_size=CHUNK))

    return Client(
        "obstore",
        lambda k, chunks: obstore.put(store, k, chunks, chunk_size=PART),
        lambda k, d: obstore.put(store, k, d, use_multipart=False),
        read_all,
        lambda k, s, e: bytes(obstore.get_range(store, k, start=s, end=e)),
    )


def adapter_client(endpoint: str, bucket: str) -> Client:
    from orgbrain.adapters.blobs_s3 import S3BlobStore

    blobs = S3BlobStore(bucket, "bench", endpoint_url=endpoint)
    return Client(
        "S3BlobStore",
        blobs.put,
        lambda k, d: blobs.put(k, [d]),
        lambda k: sum(len(c) for c in blobs.stream(k)),
        lambda k, s, e: b"".join(blobs.stream(k, s, e)),
    )


def measure(client: Client, size: int, ranges: int, rng: random.Random) -> None:
    key = f"bench/{client.name}/big"
    block = rng.randbytes(CHUNK)

    def chunks() -> Iterator[bytes]:
        for _ in range(size // CHUNK):
            yield block

    t0 = time.perf_counter()
    client.put_stream(key, chunks())
    client.put_mibs.append(size / MIB / (time.perf_counter() - t0))
    t0 = time.perf_counter()
    got = client.read_all(key)
    client.get_mibs.append(size / MIB / (time.perf_counter() - t0))
    assert got == size, (client.name, got, size)
    for _ in range(ranges):
        start = rng.randrange(0, size - RANGE)
        t0 = time.perf_counter()
        data = client.read_range(key, start, start + RANGE)
        client.range_ms.append((time.perf_counter() - t0) * 1000)
        assert data == block[start % CHUNK :][:RANGE] or len(data) == RANGE
    small = rng.randbytes(SMALL)
    for n in range(ranges // 4):
        t0 = time.perf_counter()
        client.put_small(f"bench/{client.name}/small/{n}", small)
        client.small_ms.append((time.perf_counter() - t0) * 1000)


def table(clients: list[Client]) -> str:
    rows = [
        "| client | put MiB/s | get MiB/s | 4 KiB range p50 / p95 | 16 KiB put p50 / p95 |",
        "|---|---|---|---|---|",
    ]
    for c in clients:
        rows.append(
            f"| {c.name} | {statistics.median(c.put_mibs):.0f} "
            f"| {statistics.median(c.get_mibs):.0f} "
            f"| {percentile(c.range_ms, 50):.1f} / {percentile(c.range_ms, 95):.1f} ms "
            f"| {percentile(c.small_ms, 50):.1f} / {percentile(c.small_ms, 95):.1f} ms |"
        )
    return "\n".join(rows)


def run(endpoint: str, bucket: str, args: argparse.Namespace) -> list[Client]:
    makers = [boto3_client, obstore_client]
    if not args.no_adapter:
        makers.append(adapter_client)
    clients = [make(endpoint, bucket) for make in makers]
    rng = random.Random(7)
    for _ in range(args.rounds):
        for client in clients:
            measure(client, args.mib * MIB, args.ranges, rng)
    return clients


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--ranges", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--endpoint", help="an S3 server (default: a fresh s3rver)")
    ap.add_argument("--bucket", default="bench")
    ap.add_argument("--no-adapter", action="store_true", help="the two libraries only")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.endpoint:
        clients = run(args.endpoint, args.bucket, args)
        server = args.endpoint
    else:
        with tempfile.TemporaryDirectory() as tmp:
            with running_s3rver(Path(tmp), args.bucket) as endpoint:
                for var, value in s3_env(endpoint).items():
                    os.environ.setdefault(var, value)
                clients = run(endpoint, args.bucket, args)
        server = "s3rver 3.7.1 on 127.0.0.1 (its data in a temporary folder)"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    body = (
        f"`python -m bench.blobs_s3 --mib {args.mib} --ranges {args.ranges} "
        f"--rounds {args.rounds}`: {server}; medians of {args.rounds} rounds, the clients "
        f"taking turns; load average at the end {load}.\n\n" + table(clients)
    )
    print(body)
    if not args.no_write:
        append_results("Blobs on S3", body)


if __name__ == "__main__":
    main()
