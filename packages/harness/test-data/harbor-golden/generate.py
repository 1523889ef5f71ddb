#!/usr/bin/env python3
"""Runs Harbor's own functions on the committed inputs and writes their results as golden files.

Reads Harbor's source from a git clone (default: the workspace mirror) at the commits named below;
nothing of Harbor is copied here. Each function is lifted out of its file with `ast` and executed
on its own, so Harbor's dependencies (litellm, the environment layer) are not needed; the reward
cases need pydantic, the calibration cases numpy.

    python3 generate.py [--git /path/to/harbor.git]
"""

import argparse
import ast
import asyncio
import datetime
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMITS = {
    "0.6.4": "331dcba30efcc3fa8282a21de562a3834d6e6244",
    "0.9.0": "1b1dbc43729edff705071a797bb0f98a90cf62f5",
}
T2 = "src/harbor/agents/terminus_2"
PY313 = "/root/.pyenv/versions/3.13.0/bin/python3"
# Jobs that need only the standard library run under Harbor's interpreter (3.13: json's error
# messages differ between versions); the others need numpy or pydantic from this interpreter.
STDLIB_JOBS = {"parser", "output-cap", "incremental", "send-keys"}


def show(git: str, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git}", "show", f"{commit}:{path}"],
        check=True, capture_output=True, text=True,
    ).stdout


def parse(source: str) -> ast.Module:
    """Harbor targets Python 3.13; when this interpreter cannot read its syntax (3.12 f-strings),
    3.13 re-spells the module (ast.unparse), which keeps its meaning."""
    try:
        return ast.parse(source)
    except SyntaxError:
        code = "import ast, sys; print(ast.unparse(ast.parse(sys.stdin.read())))"
        out = subprocess.run([PY313, "-c", code], input=source, check=True, capture_output=True, text=True)
        return ast.parse(out.stdout)


def lift(source: str, names: list[str], namespace: dict) -> dict:
    """Executes the named top-level or class-level functions of a module on their own."""
    tree = parse(source)
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            found[node.name] = node
    missing = set(names) - set(found)
    if missing:
        raise SystemExit(f"not found in Harbor's file: {sorted(missing)}")
    module = ast.Module(body=[found[n] for n in names], type_ignores=[])
    exec(compile(module, "<harbor>", "exec"), namespace)
    return {n: namespace[n] for n in names}


def value(v):
    """A reward value as [type, repr]: JSON has no NaN or infinity, and int vs float matters."""
    return [type(v).__name__, repr(v)]


def parser_cases(git, commit):
    with tempfile.TemporaryDirectory() as d:
        p = Path(d, "parser.py")
        p.write_text(show(git, commit, f"{T2}/terminus_json_plain_parser.py"))
        spec = importlib.util.spec_from_file_location("harbor_parser", p)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    parser = mod.TerminusJSONPlainParser()
    out = []
    for reply in json.loads((HERE / "inputs/parser-replies.json").read_text()):
        r = parser.parse_response(reply)
        out.append({
            "input": reply,
            "harbor": {
                "commands": [{"keystrokes": c.keystrokes, "duration": c.duration} for c in r.commands],
                "isTaskComplete": bool(r.is_task_complete),
                "error": r.error,
                "warning": r.warning,
                "analysis": str(r.analysis),
                "plan": str(r.plan),
            },
        })
    return out


def output_cap_cases(git, commit):
    fn = lift(show(git, commit, f"{T2}/terminus_2.py"), ["_limit_output_length"], {})["_limit_output_length"]
    out = []
    for case in json.loads((HERE / "inputs/output-cap.json").read_text()):
        text, max_bytes = case["text"], case["max_bytes"]
        result = fn(None, text, max_bytes)
        entry = {"input": case, "harbor": {"output": result, "limited": result != text}}
        if result != text:
            # Harbor's marker line sits between the kept head and tail; split on it so a test can
            # compare the parts with any wording of the marker.
            total = len(text.encode("utf-8"))
            head_end = max_bytes // 2
            head = text.encode("utf-8")[:head_end].decode("utf-8", errors="ignore")
            tail = text.encode("utf-8")[-head_end:].decode("utf-8", errors="ignore")
            assert result.startswith(head + "\n") and result.endswith("\n" + tail), case
            marker = result[len(head) + 1 : len(result) - len(tail) - 1]
            digits = [int(w) for w in marker.replace(";", " ").split() if w.isdigit()]
            entry["harbor"].update({"head": head, "tail": tail, "max": digits[0], "omitted": digits[1]})
            assert digits[1] == total - len(head.encode()) - len(tail.encode())
        out.append(entry)
    return out


def incremental_cases(git, commit):
    src = show(git, commit, f"{T2}/tmux_session.py")
    fns = lift(src, ["_find_new_content"], {})
    find = fns["_find_new_content"]

    class Session:
        pass

    out = []
    for case in json.loads((HERE / "inputs/incremental.json").read_text()):
        s = Session()
        s._previous_buffer = case["previous"]
        result = asyncio.run(find(s, case["current"]))
        out.append({"input": case, "harbor": {"newContent": result}})
    return out


def send_keys_cases(git, commit):
    import shlex

    src = show(git, commit, f"{T2}/tmux_session.py")
    names = ["_tmux_send_keys", "_split_key_for_tmux"] + (["_utf8_len"] if "def _utf8_len" in src else [])

    class Session:
        _session_name = "terminus-2"
        _TMUX_SEND_KEYS_MAX_COMMAND_LENGTH = 16_000

    fns = lift(src, names, {"shlex": shlex, "TmuxSession": Session})
    for n in names[1:]:
        setattr(Session, n, fns[n])
    out = []
    for case in json.loads((HERE / "inputs/send-keys.json").read_text()):
        out.append({"input": case, "harbor": {"commands": fns["_tmux_send_keys"](Session(), case["keys"])}})
    return out


def calibration_cases(git, commit):
    import types

    import numpy as np

    src = show(git, commit, "adapters/hle/src/hle/compute_calibration.py")
    fn = lift(src, ["calib_err"], {"np": np})["calib_err"]
    # The same function with ties kept in input order: numpy's default argsort is not stable, and
    # with SIMD dispatch its order of equal confidences depends on the CPU.
    stable_np = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    stable_np.argsort = lambda a: np.argsort(a, kind="stable")
    stable = lift(src, ["calib_err"], {"np": stable_np})["calib_err"]
    out = []
    for case in json.loads((HERE / "inputs/calibration.json").read_text()):
        conf = np.array([c / 100.0 for c in case["confidence"]])
        correct = np.array([1 if k else 0 for k in case["correct"]])
        ece = fn(conf, correct, p=case["norm"], beta=case["beta"]) * 100
        ece_stable = stable(conf, correct, p=case["norm"], beta=case["beta"]) * 100
        out.append({"input": case, "harbor": {"ece": ece, "eceStableTies": ece_stable}})
    return out


def reward_cases(git, commit):
    src = show(git, commit, "src/harbor/verifier/verifier.py")
    classes = {}
    for name in ["VerifierOutputParseError", "RewardFileNotFoundError", "RewardFileEmptyError"]:
        classes[name] = type(name, (Exception,), {})
    fns = lift(src, ["_parse_reward_text", "_parse_reward_json"], {"json": json, **classes})
    import pydantic

    ns = {}
    exec(show(git, commit, "src/harbor/models/verifier/result.py"), ns)
    VerifierResult = ns["VerifierResult"]
    json_first = commit == COMMITS["0.9.0"]

    class Paths:
        pass

    class Verifier:
        pass

    out = []
    for case in json.loads((HERE / "inputs/rewards.json").read_text()):
        with tempfile.TemporaryDirectory() as d:
            v = Verifier()
            v.trial_paths = v._trial_paths = Paths()  # 0.9 and 0.6.4 spell the attribute differently
            v.trial_paths.reward_text_path = Path(d, "reward.txt")
            v.trial_paths.reward_json_path = Path(d, "reward.json")
            if case.get("reward_txt") is not None:
                v.trial_paths.reward_text_path.write_bytes(case["reward_txt"].encode("utf-8"))
            if case.get("reward_json") is not None:
                v.trial_paths.reward_json_path.write_bytes(case["reward_json"].encode("utf-8"))
            order = ["json", "text"] if json_first else ["text", "json"]
            paths = {"json": v.trial_paths.reward_json_path, "text": v.trial_paths.reward_text_path}
            parse = {"json": fns["_parse_reward_json"], "text": fns["_parse_reward_text"]}
            try:
                chosen = next((k for k in order if paths[k].exists()), None)
                if chosen is None:
                    raise classes["RewardFileNotFoundError"]("no reward file")
                rewards = VerifierResult(rewards=parse[chosen](v)).rewards
                kept = None if rewards is None else {k: value(x) for k, x in rewards.items()}
                result = {"file": chosen, "rewards": kept}
            except (*classes.values(), pydantic.ValidationError) as e:
                # the class name is the fact; the messages carry temporary paths
                result = {"file": chosen, "error": type(e).__name__}
        out.append({"input": case, "harbor": result})
    return out


def parser_inputs():
    """The hand-written replies plus seeded mutations of valid ones (truncated, spliced, noisy)."""
    replies = json.loads((HERE / "inputs/parser-replies.hand.json").read_text())
    rng = random.Random(20261205)
    seeds = [r for r in replies if r.startswith("{")][:6]
    noise = ['"', "{", "}", ",", ":", "\\", "\n", " ", "é", "😀", "[", "]", "null", "true", "1e3"]
    for i in range(120):
        s = rng.choice(seeds)
        op = i % 4
        if op == 0:
            s = s[: rng.randrange(1, len(s))]
        elif op == 1:
            at = rng.randrange(len(s))
            s = s[:at] + rng.choice(noise) + s[at:]
        elif op == 2:
            at = rng.randrange(len(s))
            s = s[:at] + s[at + 1 :]
        else:
            s = rng.choice(["Sure! ", "```json\n", "", "{}\n"]) + s + rng.choice(["", "\n```", " {x}", "}"])
        replies.append(s)
    (HERE / "inputs/parser-replies.json").write_text(json.dumps(replies, ensure_ascii=False, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git", default="/work/.mirror/JackGuan99+harbor/repo")
    ap.add_argument("--python313", default=PY313, help="a Python 3.13 (Harbor's .python-version)")
    ap.add_argument("--job", help="run this job only (used to run the stdlib jobs under 3.13)")
    args = ap.parse_args()
    git = args.git
    globals()["PY313"] = args.python313
    if not args.job:
        parser_inputs()
    today = datetime.date.today().isoformat()
    jobs = {
        "parser": (parser_cases, f"{T2}/terminus_json_plain_parser.py", "TerminusJSONPlainParser.parse_response"),
        "output-cap": (output_cap_cases, f"{T2}/terminus_2.py", "Terminus2._limit_output_length"),
        "incremental": (incremental_cases, f"{T2}/tmux_session.py", "TmuxSession._find_new_content"),
        "send-keys": (send_keys_cases, f"{T2}/tmux_session.py", "TmuxSession._tmux_send_keys"),
        "calibration": (calibration_cases, "adapters/hle/src/hle/compute_calibration.py", "calib_err"),
        "rewards": (reward_cases, "src/harbor/verifier/verifier.py", "Verifier._parse_reward_{text,json} + VerifierResult"),
    }
    for name, (run, path, function) in jobs.items():
        if args.job and name != args.job:
            continue
        if not args.job and name in STDLIB_JOBS:
            # A fixed hash seed: Harbor lists unknown command fields in set order, which varies per run.
            env = {**os.environ, "PYTHONHASHSEED": "0"}
            subprocess.run([args.python313, __file__, "--git", git, "--job", name], check=True, env=env)
            continue
        results = {version: run(git, commit) for version, commit in COMMITS.items()}
        same = results["0.6.4"] == results["0.9.0"]
        # One file when both versions give the same results, one per version otherwise.
        groups = [list(COMMITS)] if same else [[v] for v in COMMITS]
        for versions in groups:
            golden = {
                "harbor": {
                    "versions": {v: COMMITS[v] for v in versions},
                    "file": path,
                    "function": function,
                },
                "generated": today,
                "python": sys.version.split()[0],
                **({"numpy": __import__("numpy").__version__} if name == "calibration" else {}),
                "cases": results[versions[0]],
            }
            suffix = "" if same else f".{versions[0]}"
            target = HERE / f"{name}{suffix}.golden.json"
            target.write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n")
            print(f"{target.name}: {len(golden['cases'])} cases")

if __name__ == "__main__":
    main()
