"""Train the statement classifier's weights on the TRAIN split; report on the DEV split.

    PYTHONPATH=src python scripts/train_statement_classifier.py [--out PATH]

Each single-sentence record is one example: its first statement's type, or ``none``.
Writes ``src/orgbrain/extraction/statement_classifier.npz`` unless ``--out`` says otherwise,
and prints sentence-level detection and typing scores on the dev set (never trained on).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.evals.statements import Labelled, load_statements
from orgbrain.extraction.classifier import CLASSES, WEIGHTS_FILE, softmax, train_weights
from orgbrain.extraction.sentences import split_units

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "orgbrain" / "evals" / "data"


def examples(records: list[Labelled]) -> tuple[list[str], list[int]]:
    texts, labels = [], []
    for record in records:
        if len(split_units(record.text)) != 1:
            continue
        label = record.statements[0].type if record.statements else "none"
        texts.append(record.text)
        labels.append(CLASSES.index(label))
    return texts, labels


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "src/orgbrain/extraction" / WEIGHTS_FILE)
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    train_x, train_y = examples(load_statements(DATA / "statements_train.jsonl"))
    dev_x, dev_y = examples(load_statements(DATA / "statements_dev.jsonl"))
    xt = embedder.embed(train_x)
    w, b = train_weights(xt, np.asarray(train_y))
    xd = embedder.embed(dev_x)
    for name, x, y in (("train", xt, train_y), ("dev", xd, dev_y)):
        probs = softmax(x @ w + b)
        pred = probs.argmax(axis=1)
        gold = np.asarray(y)
        print(f"{name}: {len(y)} sentences, accuracy {np.mean(pred == gold):.3f}")
        for threshold in (0.0, 0.5, 0.7):
            said = (pred != 0) & (probs.max(axis=1) >= threshold)
            truth = gold != 0
            tp = int(np.sum(said & truth))
            p = tp / max(int(said.sum()), 1)
            r = tp / max(int(truth.sum()), 1)
            typed = int(np.sum(said & truth & (pred == gold)))
            print(
                f"  threshold {threshold:.1f}: statement-bearing P {p:.3f} R {r:.3f}; "
                f"typed right {typed}/{tp}"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, w=w, b=b, embedder=np.asarray(embedder.name))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
