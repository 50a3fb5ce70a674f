#!/usr/bin/env python3
"""Validate the evalgen_families output and print a per-family summary table.

Checks, per family:
  - exactly 300 lines, each a valid JSON object with the generic trace shape
  - unique ids of the form <family>-NNNN
  - every tool_call of an llm step is answered by exactly one tool step with the same
    tool_call_id (and the same tool name), no orphan tool steps, and failed tool steps
    have output null + an error string
  - rating in {positive, negative}; negatives between 40% and 60%
  - 2-3 distinct agent_ids
  - <family>.noise.json lists existing ids, and un-flipping them reproduces the clean
    labels recorded in <family>.scenarios.json
Also (unless --no-determinism) regenerates everything in a temp dir and compares bytes.

Usage: python3 bench/evalgen_families/check_families.py [--no-determinism]
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
N = 300
FAMILIES = ["calendar_scheduling", "returns_refunds", "test_runner_claims", "destructive_db_ops",
            "shifting_preferences", "grounded_answers", "tool_failure_honesty", "wasteful_loops",
            "unsafe_or_wrong_refusals", "unfinished_answers"]


def check_trace(fam, t, errs):
    tid = t.get("id", "?")
    for k in ("id", "agent_id", "input", "steps", "output", "rating"):
        if k not in t:
            errs.append(f"{tid}: missing key {k}")
            return
    if not str(tid).startswith(fam + "-"):
        errs.append(f"{tid}: id does not start with family name")
    if t["rating"] not in ("positive", "negative"):
        errs.append(f"{tid}: bad rating {t['rating']!r}")
    msgs = t["input"].get("messages")
    if not (isinstance(msgs, list) and len(msgs) >= 2 and msgs[0].get("role") == "system" and msgs[1].get("role") == "user"):
        errs.append(f"{tid}: input.messages must start with system then user")
    if not isinstance(t["output"], str):
        errs.append(f"{tid}: output is not a string")
    pending = {}
    answered = set()
    for i, s in enumerate(t["steps"]):
        typ = s.get("type")
        if typ == "llm":
            if not isinstance(s.get("content"), str) or not isinstance(s.get("tool_calls"), list) or "model" not in s:
                errs.append(f"{tid}: step {i} malformed llm step")
                continue
            for c in s["tool_calls"]:
                cid = c.get("id")
                if cid in pending or cid in answered:
                    errs.append(f"{tid}: duplicate tool_call id {cid}")
                if not isinstance(c.get("arguments"), dict) or not c.get("name"):
                    errs.append(f"{tid}: tool_call {cid} malformed")
                pending[cid] = c.get("name")
        elif typ == "tool":
            cid = s.get("tool_call_id")
            if cid not in pending:
                errs.append(f"{tid}: step {i} tool step answers unknown or already-answered call {cid}")
                continue
            if pending[cid] != s.get("name"):
                errs.append(f"{tid}: step {i} tool name {s.get('name')} != call name {pending[cid]}")
            del pending[cid]
            answered.add(cid)
            if s.get("error") is not None:
                if s.get("output") is not None or not isinstance(s["error"], str):
                    errs.append(f"{tid}: step {i} failed tool step must have output null and a string error")
            if "input" not in s:
                errs.append(f"{tid}: step {i} tool step without input")
        elif typ == "user":
            if not isinstance(s.get("content"), str):
                errs.append(f"{tid}: step {i} user step without content")
        else:
            errs.append(f"{tid}: step {i} unknown type {typ}")
    if pending:
        errs.append(f"{tid}: unanswered tool calls {sorted(pending)}")


def check_family(fam):
    errs = []
    path = os.path.join(HERE, f"{fam}.jsonl")
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    if len(lines) != N:
        errs.append(f"{fam}: {len(lines)} lines, expected {N}")
    traces = []
    for k, ln in enumerate(lines):
        try:
            t = json.loads(ln)
        except json.JSONDecodeError as e:
            errs.append(f"{fam}: line {k + 1} invalid JSON: {e}")
            continue
        if not isinstance(t, dict):
            errs.append(f"{fam}: line {k + 1} is not an object")
            continue
        traces.append(t)
        check_trace(fam, t, errs)
    ids = [t.get("id") for t in traces]
    if len(set(ids)) != len(ids):
        errs.append(f"{fam}: duplicate ids")
    neg = sum(1 for t in traces if t.get("rating") == "negative")
    if not (0.40 * N <= neg <= 0.60 * N):
        errs.append(f"{fam}: negatives {neg} outside 40-60%")
    agents = sorted(set(t.get("agent_id") for t in traces))
    if not (2 <= len(agents) <= 3):
        errs.append(f"{fam}: {len(agents)} agent ids {agents}")
    with open(os.path.join(HERE, f"{fam}.noise.json"), encoding="utf-8") as fh:
        noise = json.load(fh)
    flipped = noise["flipped_ids"]
    idset = set(ids)
    if any(f not in idset for f in flipped) or len(set(flipped)) != len(flipped):
        errs.append(f"{fam}: noise file lists unknown or duplicate ids")
    with open(os.path.join(HERE, f"{fam}.scenarios.json"), encoding="utf-8") as fh:
        scen = json.load(fh)["traces"]
    fl = set(flipped)
    mism = 0
    for t in traces:
        clean = scen[t["id"]]["clean_label"]
        expect = clean if t["id"] not in fl else ("positive" if clean == "negative" else "negative")
        if t["rating"] != expect:
            mism += 1
    if mism:
        errs.append(f"{fam}: {mism} ratings inconsistent with scenarios + noise")
    steps = [len(t["steps"]) for t in traces]
    users = [1 + sum(1 for s in t["steps"] if s["type"] == "user") for t in traces]
    tools = sorted(set(s["name"] for t in traces for s in t["steps"] if s["type"] == "tool"))
    stats = {"traces": len(traces), "neg": neg, "pos": len(traces) - neg, "flips": len(flipped),
             "clean_neg": sum(1 for v in scen.values() if v["clean_label"] == "negative"),
             "agents": len(agents), "tools": len(tools), "max_turns": max(users), "avg_steps": sum(steps) / max(1, len(steps)),
             "bytes": os.path.getsize(path)}
    return stats, errs


def determinism():
    files = sorted(f for f in os.listdir(HERE) if f.endswith((".jsonl", ".json")) or f == "README.md")
    with tempfile.TemporaryDirectory() as td:
        shutil.copy(os.path.join(HERE, "make_families.py"), td)
        subprocess.run([sys.executable, os.path.join(td, "make_families.py")], check=True, stdout=subprocess.DEVNULL)
        bad = []
        for f in files:
            a = hashlib.sha256(open(os.path.join(HERE, f), "rb").read()).hexdigest()
            p = os.path.join(td, f)
            b = hashlib.sha256(open(p, "rb").read()).hexdigest() if os.path.exists(p) else None
            if a != b:
                bad.append(f)
        return bad


def main():
    all_errs = []
    print(f"{'family':28s} {'traces':>6s} {'pos':>5s} {'neg':>5s} {'neg%':>5s} {'clean_neg':>9s} {'flips':>5s} "
          f"{'agents':>6s} {'tools':>5s} {'turns':>5s} {'steps':>5s} {'KB':>6s}")
    tot = 0
    for fam in FAMILIES:
        st, errs = check_family(fam)
        all_errs += errs
        tot += st["bytes"]
        print(f"{fam:28s} {st['traces']:6d} {st['pos']:5d} {st['neg']:5d} {st['neg'] / max(1, st['traces']):5.0%} "
              f"{st['clean_neg']:9d} {st['flips']:5d} {st['agents']:6d} {st['tools']:5d} {st['max_turns']:5d} "
              f"{st['avg_steps']:5.1f} {st['bytes'] / 1024:6.0f}")
    print(f"total JSONL size: {tot / 1e6:.2f} MB")
    if tot > 12e6:
        all_errs.append("total JSONL size exceeds 12 MB")
    if "--no-determinism" not in sys.argv:
        bad = determinism()
        print("determinism: " + ("OK (byte-identical regeneration)" if not bad else f"MISMATCH in {bad}"))
        if bad:
            all_errs.append(f"non-deterministic files: {bad}")
    if all_errs:
        print(f"\n{len(all_errs)} problem(s):")
        for e in all_errs[:50]:
            print("  -", e)
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
