#!/usr/bin/env python3
"""Tries fusions and selection rules of the retrieval view offline.

Reads the JSON lines `HONE_RETRIEVAL_DUMP` makes the `retrieval` bench write
(crates/hone-core/benches/retrieval.rs): per case, the 50 best candidates of
the retrieval view with every piece of their evidence. Fusion weights are
fitted on the tuning library only (`held_out: false`) and reported on every
library; selection rules are fitted on one library and scored on the others
(each library's figure comes from rules fitted elsewhere).

Usage: scripts/retrieval-fusion.py DUMP.jsonl
"""

import itertools
import json
import math
import statistics
import sys
from collections import defaultdict


def load(path):
    groups = defaultdict(list)
    with open(path) as f:
        for line in f:
            case = json.loads(line)
            groups[(case["ranker"], case["model"])].append(case)
    return groups


def squash(x):
    return x / (1.0 + x)


def fusions(ranker):
    """Name -> scoring function of one candidate's evidence."""
    found = {}
    if ranker == "bm25":
        for b in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0):
            found[f"keyword + {b} body"] = lambda c, b=b: c["keyword"] + b * squash(c["body"])
        found["body alone"] = lambda c: c["body"]
        return found
    for a, b, k, t in itertools.product(
        (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5),
        (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5),
        (0.0, 0.25),
        (0.0, 0.25, 0.5, 1.25),
    ):
        found[f"sum desc + {a} section + {b} body + {k} kw + {t} token"] = (
            lambda c, a=a, b=b, k=k, t=t: c["description"]
            + a * c["section"]
            + b * squash(c["body"])
            + k * c["keyword"]
            + t * c["token"]
        )
    for b in (0.0, 0.25, 0.5):
        found[f"max(desc, section) + {b} body + 0.25 kw + token"] = (
            lambda c, b=b: max(c["description"], c["section"])
            + b * squash(c["body"])
            + 0.25 * c["keyword"]
            + 1.25 * c["token"]
        )
    found["sum desc + 0.5 mean(top-2 sections) + 0.5 body + 0.25 kw + token"] = (
        lambda c: c["description"]
        + 0.25 * (c["section"] + c["section2"])
        + 0.5 * squash(c["body"])
        + 0.25 * c["keyword"]
        + 1.25 * c["token"]
    )
    found["listing only: desc + 0.25 kw + token"] = (
        lambda c: c["description"] + 0.25 * c["keyword"] + 1.25 * c["token"]
    )
    return found


# The view's fusion (equal weights) and the one before it, always shown.
REFERENCES = (
    "sum desc + 1.0 section + 1.0 body + 0.0 kw + 0.0 token",
    "sum desc + 0.5 section + 0.5 body + 0.25 kw + 1.25 token",
)


def rrf(case, k=60):
    features = ("description", "section", "body", "keyword")
    scores = defaultdict(float)
    for feature in features:
        ordered = sorted(case["candidates"], key=lambda c: -c[feature])
        for rank, c in enumerate(ordered):
            scores[id(c)] += 1.0 / (k + rank + 1)
    return scores


def ranked(case, score):
    seen, out = set(), []
    for c in sorted(case["candidates"], key=lambda c: -score(c)):
        if c["id"] in seen:
            continue
        seen.add(c["id"])
        out.append((c["id"], score(c)))
    return out


def p_at_1(cases, score):
    positives = [c for c in cases if c["expect"]]
    if not positives:
        return float("nan")
    hits = sum(1 for c in positives if (r := ranked(c, score)) and r[0][0] in c["expect"])
    return hits / len(positives)


def selection_features(case, score):
    r = ranked(case, score)
    # The view's own confidence in its top match (the listing's, see
    # crates/hone-rank/src/rank/retrieval/mod.rs), when the dump has it.
    confidence = case.get("confidence")
    scores = [s for _, s in r]
    if not scores:
        return None
    mean = statistics.fmean(scores)
    spread = statistics.pstdev(scores) or 1e-6
    top, second = scores[0], (scores[1] if len(scores) > 1 else scores[0])
    near = sum(1 for s in scores[1:] if top - s < 0.02)
    return {
        "top": top,
        "margin": top - second,
        "z": (top - mean) / spread,
        "zmargin": (top - second) / spread,
        "near": near,
        "confidence": -1.0 if confidence is None else confidence,
        "right": bool(case["expect"]) and r[0][0] in case["expect"],
        "positive": bool(case["expect"]),
    }


RULES = {
    "raw top score": lambda f: f["top"],
    "margin to the 2nd": lambda f: f["margin"],
    "standard score among candidates": lambda f: f["z"],
    "margin in candidate deviations": lambda f: f["zmargin"],
    "standard score + margin in deviations": lambda f: f["z"] + f["zmargin"],
    "standard score + margin, less near-duplicates": lambda f: f["z"] + f["zmargin"] - 0.5 * f["near"],
    "the view's confidence (the listing's in its top match)": lambda f: f["confidence"],
}


def accuracy(features, rule, t):
    right = 0
    for f in features:
        chosen = rule(f) >= t
        if f["positive"]:
            right += chosen and f["right"]
        else:
            right += not chosen
    return right / len(features)


def best_threshold(features, rule):
    values = sorted({round(rule(f), 3) for f in features})
    best = max(values, key=lambda t: (accuracy(features, rule, t), -abs(t)))
    return best


def main():
    groups = load(sys.argv[1])
    for (ranker, model), cases in sorted(groups.items()):
        print(f"\n### {ranker} / {model}")
        libraries = sorted({c["library"] for c in cases})
        by_library = {lib: [c for c in cases if c["library"] == lib] for lib in libraries}
        tuning = [lib for lib in libraries if not by_library[lib][0]["held_out"]]
        options = fusions(ranker)
        if ranker != "bm25":
            options["reciprocal-rank fusion (k=60)"] = None
        results = []
        for name, score in options.items():
            row = {}
            for lib in libraries:
                if score is None:
                    hits = total = 0
                    for c in by_library[lib]:
                        if not c["expect"]:
                            continue
                        s = rrf(c)
                        best = max(c["candidates"], key=lambda x: s[id(x)])
                        hits += best["id"] in c["expect"]
                        total += 1
                    row[lib] = hits / total
                else:
                    row[lib] = p_at_1(by_library[lib], score)
            results.append((name, row))
        key = lambda item: sum(item[1][lib] for lib in tuning)
        results.sort(key=key, reverse=True)
        print("P@1 by fusion (fitted on: " + ", ".join(tuning) + "), best first:")
        for name, row in results[:8] + [r for r in results if r[0].startswith(("listing only", "reciprocal", "max(", "sum desc + 0.5 mean")) or r[0] in REFERENCES]:
            print("  " + name + ": " + ", ".join(f"{lib} {row[lib]:.3f}" for lib in libraries))
        chosen_name = REFERENCES[0] if REFERENCES[0] in options else results[0][0]
        score = options[chosen_name]
        print(f"selection, with `{chosen_name}`: threshold fitted on one library, accuracy on the others")
        features = {
            lib: [f for c in by_library[lib] if (f := selection_features(c, score))] for lib in libraries
        }
        for rule_name, rule in RULES.items():
            cells = []
            for fit in libraries:
                t = best_threshold(features[fit], rule)
                others = [
                    f"{lib} {accuracy(features[lib], rule, t):.3f}" for lib in libraries if lib != fit
                ]
                cells.append(f"fit {fit} (t={t:.2f}, own {accuracy(features[fit], rule, t):.3f}): " + ", ".join(others))
            print(f"  {rule_name}:\n    " + "\n    ".join(cells))
        own = [c["threshold"] for c in cases if "threshold" in c]
        if own:
            rule = RULES["the view's confidence (the listing's in its top match)"]
            cells = []
            for lib in libraries:
                negatives = [f for f in features[lib] if not f["positive"]]
                fpr = sum(rule(f) >= own[0] for f in negatives) / max(len(negatives), 1)
                cells.append(f"{lib} {accuracy(features[lib], rule, own[0]):.3f} (FPR {fpr:.2f})")
            print(f"  the view's confidence at its own threshold {own[0]:.2f}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
