"""The columnar layout of lawgen's Python modules, from and to plain Python.

`facts_to_batch` writes docs/reference.md#facts-files facts (one dict per case) as a facts batch;
`verdicts_to_outputs` reads a verdicts batch back into one docs/reference.md#the-canonical-output dict per
case (or {"error": message}), so tests can compare `evaluate_arrow` with
`evaluate`. See docs/python.md for the layout.
"""

import json

import pyarrow as pa


def facts_to_batch(cases, arity, keys=None, strings=pa.string(), dictionary=False):
    """A facts batch for `cases` (docs/reference.md#facts-files dicts); case i gets key keys[i] (default i)."""
    case, pred = [], []
    ents = [[] for _ in range(arity)]
    ints = [[] for _ in range(arity)]

    def row(k, p, values):
        case.append(k)
        pred.append(p)
        for j in range(arity):
            v = values[j] if j < len(values) else None
            ents[j].append(v if isinstance(v, str) else None)
            ints[j].append(v if isinstance(v, int) and not isinstance(v, bool) else None)

    for i, f in enumerate(cases):
        k = i if keys is None else keys[i]
        for ty, names in f.get("entities", {}).items():
            for name in names:
                row(k, "@" + ty, [name])
        for p, rows in f.get("facts", {}).items():
            for values in rows:
                row(k, p, values)
    columns = {"case": pa.array(case, pa.int64())}
    p = pa.array(pred, strings)
    columns["predicate"] = p.dictionary_encode() if dictionary else p
    for j in range(arity):
        columns[f"e{j}"] = pa.array(ents[j], strings)
    for j in range(arity):
        columns[f"n{j}"] = pa.array(ints[j], pa.int64())
    return pa.record_batch(columns)


def has_rows(case):
    """Does a docs/reference.md#facts-files case have a row in the layout? (A case without facts or
    entities has none, and so is not in a facts batch at all.)"""
    return any(case.get("facts", {}).values()) or any(case.get("entities", {}).values())


def verdicts_to_outputs(batch):
    """{case: docs/reference.md#the-canonical-output dict, or {"error": message}} from a verdicts batch."""
    meta = {k.decode(): v.decode() for k, v in (batch.schema.metadata or {}).items()}
    arity = sum(1 for name in batch.schema.names if name.startswith("e") and name[1:].isdigit())
    out = {}
    for r in batch.to_pylist():
        k = r["case"]
        o = out.setdefault(
            k,
            {
                "package": meta["lawgen.package"],
                "version": meta["lawgen.version"],
                "policy": meta["lawgen.policy"],
                "asOf": json.loads(meta["lawgen.asOf"]),
                "editions": json.loads(meta["lawgen.editions"]),
                "definitely": {},
                "defeasibly": {},
                "supported": {},
                "pending": {},
                "requests": [],
            },
        )
        args = []
        for j in range(arity):
            e, n = r[f"e{j}"], r[f"n{j}"]
            if e is not None:
                args.append(e)
            elif n is not None:
                args.append(n)
            else:
                break
        s = r["section"]
        if s == "none":
            continue
        if s == "error":
            out[k] = {"error": r["message"]}
        elif s == "request":
            o["requests"].append(
                {"args": args, "authority": r["authority"], "capability": r["capability"], "predicate": r["literal"]}
            )
        else:
            o[s].setdefault(r["literal"], []).append(args)
    return out
