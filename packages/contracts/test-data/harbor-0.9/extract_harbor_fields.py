#!/usr/bin/env python3
"""Extract pydantic / TypedDict / Enum field lists from a Harbor source tree.

Pure standard library (``ast``); Harbor itself is never imported.

Usage:
    python3 extract_harbor_fields.py <harbor_dir> [--roots A,B,...] [--all]

<harbor_dir> may be the repo root (containing ``src/harbor``), the ``src``
directory, or the ``harbor`` package directory itself.

Output (stdout) is JSON:
    {
      "harbor_version": "...",            # from pyproject.toml if found
      "package_dir": "...",
      "roots": [...],                      # requested root model names
      "models": {                          # keyed by "<module>:<Class>"
        "harbor.models.trial.result:TrialResult": {
          "name", "module", "file", "line", "kind" (pydantic|typeddict|enum|dataclass|class),
          "bases", "model_config", "typeddict_total",
          "fields": [{name, line, type, required, default, default_factory,
                      constraints, description, exclude, references}],
          "enum_members": [...],           # enums only
          "validators": [{name, line, decorator, args, mode, doc}],
          "methods": [...],
          "references": [...]             # qualified names of referenced models
        }, ...
      },
      "type_aliases": {"<module>:<Name>": "<expr>"},
      "module_constants": {"<module>": {"NAME": "<expr>"}},
      "unresolved_names": [...]            # names used in annotations not found
    }

By default every class reachable (through field annotations) from the root
models is emitted. ``--all`` emits every model class found under
``harbor/models``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

DEFAULT_ROOTS = [
    # trial
    "harbor.models.trial.result:TrialResult",
    "harbor.models.trial.result:StepResult",
    "harbor.models.trial.result:AgentInfo",
    "harbor.models.trial.result:ModelInfo",
    "harbor.models.trial.result:ExceptionInfo",
    "harbor.models.trial.result:TimingInfo",
    "harbor.models.trial.config:TrialConfig",
    "harbor.models.trial.artifact_manifest:ArtifactManifest",
    # agent / verifier
    "harbor.models.agent.context:AgentContext",
    "harbor.models.verifier.result:VerifierResult",
    # job
    "harbor.models.job.result:JobResult",
    "harbor.models.job.config:JobConfig",
    # lock
    "harbor.models.job.lock:JobLock",
    "harbor.models.job.lock:TrialLock",
    "harbor.models.job.lock:TaskLock",
    "harbor.models.job.lock:ExtraInstructionLock",
    "harbor.models.job.lock:AgentSkillLock",
    "harbor.models.job.lock:ExtraDockerComposeLock",
    "harbor.models.job.lock:HarborLockInfo",
    # ATIF
    "harbor.models.trajectories.trajectory:Trajectory",
]

PYDANTIC_BASES = {"BaseModel", "RootModel"}
TYPEDDICT_BASES = {"TypedDict"}
ENUM_BASES = {"Enum", "StrEnum", "IntEnum"}
VALIDATOR_DECORATORS = {
    "field_validator",
    "model_validator",
    "field_serializer",
    "model_serializer",
    "validator",
    "root_validator",
    "computed_field",
}
FIELD_KWARGS_CONSTRAINTS = {
    "ge",
    "gt",
    "le",
    "lt",
    "min_length",
    "max_length",
    "pattern",
    "multiple_of",
    "alias",
    "validation_alias",
    "serialization_alias",
    "frozen",
    "strict",
    "exclude_if",
}
# Names in annotations that are typing/builtin, not model references.
BUILTIN_TYPE_NAMES = {
    "str", "int", "float", "bool", "bytes", "dict", "list", "set", "tuple",
    "frozenset", "object", "None", "Any", "Literal", "Optional", "Union",
    "ClassVar", "NotRequired", "Required", "Annotated", "Sequence", "Mapping",
    "Path", "PurePosixPath", "PurePath", "UUID", "datetime", "date", "Callable",
    "Iterable", "type", "Self", "Final",
}


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def locate_package(root: Path) -> Path:
    for candidate in (root / "src" / "harbor", root / "harbor", root):
        if (candidate / "__init__.py").exists() and (candidate / "models").is_dir():
            return candidate.resolve()
    raise SystemExit(f"Could not find the harbor package under {root}")


def find_version(pkg_dir: Path) -> str | None:
    for parent in [pkg_dir, *pkg_dir.parents][:4]:
        pyproject = parent / "pyproject.toml"
        if pyproject.exists():
            m = re.search(
                r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), flags=re.M
            )
            if m:
                return m.group(1)
    return None


def module_name_for(pkg_dir: Path, file: Path) -> str:
    rel = file.relative_to(pkg_dir.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def unparse(node: ast.AST | None) -> str | None:
    if node is None:
        return None
    return ast.unparse(node)


def literal_or_source(node: ast.AST | None) -> Any:
    """Return a JSON-friendly literal value when possible, else source text."""
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except Exception:
        return {"expr": ast.unparse(node)}
    if value is Ellipsis:
        return {"expr": "..."}
    try:
        json.dumps(value)
        return value
    except TypeError:
        return {"expr": ast.unparse(node)}


def base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return base_name(node.value)
    return ast.unparse(node)


def decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        return decorator_name(node.func)
    return base_name(node)


def annotation_names(node: ast.AST | None) -> list[str]:
    """All bare names referenced in an annotation (string forward refs parsed)."""
    if node is None:
        return []
    names: list[str] = []

    def visit(n: ast.AST) -> None:
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            try:
                visit(ast.parse(n.value, mode="eval").body)
            except SyntaxError:
                pass
            return
        if isinstance(n, ast.Subscript) and base_name(n.value) == "Literal":
            return  # Literal["a", "b"] members are values, not type names
        if isinstance(n, ast.Name):
            names.append(n.id)
        elif isinstance(n, ast.Attribute):
            names.append(n.attr)
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return names


def is_wrapped(annotation: ast.AST | None, wrapper: str) -> bool:
    return (
        isinstance(annotation, ast.Subscript) and base_name(annotation.value) == wrapper
    )


def first_doc_line(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    doc = ast.get_docstring(fn)
    if not doc:
        return None
    return doc.strip().splitlines()[0]


# --------------------------------------------------------------------------
# module scanning
# --------------------------------------------------------------------------


class ModuleInfo:
    def __init__(self, name: str, file: Path, tree: ast.Module):
        self.name = name
        self.file = file
        self.tree = tree
        self.classes: dict[str, ast.ClassDef] = {}
        self.imports: dict[str, str] = {}  # local name -> "module:Name"
        self.aliases: dict[str, ast.expr] = {}  # module-level Name = <expr>
        self.constants: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (
                        f"{node.module}:{alias.name}"
                    )
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    self.aliases[target.id] = node.value
                    if isinstance(node.value, ast.Constant) or (
                        isinstance(node.value, (ast.Set, ast.List, ast.Tuple))
                        and all(isinstance(e, ast.Constant) for e in node.value.elts)
                    ):
                        self.constants[target.id] = ast.unparse(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if node.value is not None:
                    self.aliases[node.target.id] = node.value


class Extractor:
    def __init__(self, pkg_dir: Path):
        self.pkg_dir = pkg_dir
        self.modules: dict[str, ModuleInfo] = {}
        self._scan()
        self.unresolved: set[str] = set()
        self.type_aliases: dict[str, str] = {}

    def _scan(self) -> None:
        for file in sorted(self.pkg_dir.rglob("*.py")):
            # Scan the whole package so cross-module imports resolve, but skip
            # obviously irrelevant trees to keep this fast.
            rel = file.relative_to(self.pkg_dir).as_posix()
            if rel.startswith(("cli/template", "agents/installed/cline")):
                continue
            try:
                tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
            except (SyntaxError, UnicodeDecodeError):
                continue
            name = module_name_for(self.pkg_dir, file)
            self.modules[name] = ModuleInfo(name, file, tree)

    # ---- resolution -------------------------------------------------------

    def resolve(self, module: str, name: str, _depth: int = 0) -> str | None:
        """Resolve a bare name in a module to a qualified "module:Class"."""
        if _depth > 10:
            return None
        mod = self.modules.get(module)
        if mod is None:
            return None
        if name in mod.classes:
            return f"{module}:{name}"
        if name in mod.imports:
            target_mod, target_name = mod.imports[name].split(":", 1)
            if target_mod in self.modules:
                return self.resolve(target_mod, target_name, _depth + 1)
            # maybe a package re-export (harbor.models.trajectories -> submodule)
            return None
        return None

    def resolve_alias(self, module: str, name: str) -> tuple[str, ast.expr] | None:
        mod = self.modules.get(module)
        if mod is None:
            return None
        if name in mod.aliases and name not in mod.classes:
            expr = mod.aliases[name]
            # Only treat as a type alias if it looks like a type expression.
            if isinstance(expr, (ast.Subscript, ast.BinOp, ast.Name, ast.Attribute)):
                return module, expr
        if name in mod.imports:
            target_mod, target_name = mod.imports[name].split(":", 1)
            if target_mod in self.modules:
                return self.resolve_alias(target_mod, target_name)
        return None

    def refs_in_annotation(self, module: str, annotation: ast.AST | None) -> list[str]:
        refs: list[str] = []
        seen_alias: set[str] = set()

        def walk(mod: str, node: ast.AST | None) -> None:
            for n in annotation_names(node):
                if n in BUILTIN_TYPE_NAMES:
                    continue
                q = self.resolve(mod, n)
                if q:
                    if q not in refs:
                        refs.append(q)
                    continue
                alias = self.resolve_alias(mod, n)
                if alias:
                    amod, expr = alias
                    key = f"{amod}:{n}"
                    if key not in seen_alias:
                        seen_alias.add(key)
                        self.type_aliases[key] = ast.unparse(expr)
                        walk(amod, expr)
                    continue
                self.unresolved.add(f"{mod}:{n}")

        walk(module, annotation)
        return refs

    # ---- class extraction -------------------------------------------------

    def class_kind(self, module: str, cls: ast.ClassDef, _depth: int = 0) -> str:
        if any(
            isinstance(d, (ast.Name, ast.Attribute, ast.Call))
            and decorator_name(d) == "dataclass"
            for d in cls.decorator_list
        ):
            return "dataclass"
        for b in cls.bases:
            bn = base_name(b)
            if bn in PYDANTIC_BASES:
                return "pydantic"
            if bn in TYPEDDICT_BASES:
                return "typeddict"
            if bn in ENUM_BASES:
                return "enum"
            q = self.resolve(module, bn)
            if q and _depth < 10:
                qmod, qname = q.split(":", 1)
                inner = self.modules[qmod].classes[qname]
                kind = self.class_kind(qmod, inner, _depth + 1)
                if kind != "class":
                    return kind
        return "class"

    def inherited_bases(self, module: str, cls: ast.ClassDef) -> list[str]:
        out = []
        for b in cls.bases:
            q = self.resolve(module, base_name(b))
            if q:
                out.append(q)
        return out

    def extract_class(self, qualified: str) -> dict[str, Any]:
        module, name = qualified.split(":", 1)
        mod = self.modules[module]
        cls = mod.classes[name]
        kind = self.class_kind(module, cls)

        info: dict[str, Any] = {
            "name": name,
            "module": module,
            "file": str(mod.file.relative_to(self.pkg_dir.parent.parent))
            if (self.pkg_dir.parent.name == "src")
            else str(mod.file),
            "line": cls.lineno,
            "kind": kind,
            "bases": [ast.unparse(b) for b in cls.bases],
            "inherits": self.inherited_bases(module, cls),
            "docstring": (ast.get_docstring(cls) or "").strip().splitlines()[0]
            if ast.get_docstring(cls)
            else None,
            "fields": [],
            "validators": [],
            "methods": [],
            "references": [],
        }

        typeddict_total = True
        for kw in cls.keywords:
            if kw.arg == "total":
                typeddict_total = bool(literal_or_source(kw.value))
        if kind == "typeddict":
            info["typeddict_total"] = typeddict_total

        refs: list[str] = []
        for q in info["inherits"]:
            if q not in refs:
                refs.append(q)

        for node in cls.body:
            # model_config = {...} / ConfigDict(...)
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                tname = node.targets[0].id
                if tname == "model_config":
                    cfg: Any
                    if isinstance(node.value, ast.Call):
                        cfg = {
                            kw.arg: literal_or_source(kw.value)
                            for kw in node.value.keywords
                        }
                    else:
                        cfg = literal_or_source(node.value)
                    info["model_config"] = cfg
                elif kind == "enum":
                    info.setdefault("enum_members", []).append(
                        {"name": tname, "value": literal_or_source(node.value)}
                    )
                continue

            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                field = self.extract_field(module, kind, typeddict_total, node)
                if field is None:
                    continue
                info["fields"].append(field)
                for r in field["references"]:
                    if r not in refs:
                        refs.append(r)
                continue

            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decos = [decorator_name(d) for d in node.decorator_list]
                vdeco = next((d for d in decos if d in VALIDATOR_DECORATORS), None)
                if vdeco:
                    dnode = next(
                        d
                        for d in node.decorator_list
                        if decorator_name(d) == vdeco
                    )
                    args: list[Any] = []
                    mode = None
                    if isinstance(dnode, ast.Call):
                        args = [literal_or_source(a) for a in dnode.args]
                        for kw in dnode.keywords:
                            if kw.arg == "mode":
                                mode = literal_or_source(kw.value)
                            else:
                                args.append({kw.arg: literal_or_source(kw.value)})
                    info["validators"].append(
                        {
                            "name": node.name,
                            "line": node.lineno,
                            "decorator": vdeco,
                            "args": args,
                            "mode": mode,
                            "doc": first_doc_line(node),
                        }
                    )
                else:
                    info["methods"].append(node.name)

        info["references"] = refs
        if "model_config" not in info and kind == "pydantic":
            info["model_config"] = None
        return info

    def extract_field(
        self,
        module: str,
        kind: str,
        typeddict_total: bool,
        node: ast.AnnAssign,
    ) -> dict[str, Any] | None:
        name = node.target.id  # type: ignore[union-attr]
        annotation = node.annotation
        if is_wrapped(annotation, "ClassVar"):
            return None

        field: dict[str, Any] = {
            "name": name,
            "line": node.lineno,
            "type": ast.unparse(annotation),
            "required": None,
            "default": None,
            "default_factory": None,
            "constraints": {},
            "description": None,
            "exclude": None,
            "references": self.refs_in_annotation(module, annotation),
        }

        if kind == "typeddict":
            if is_wrapped(annotation, "NotRequired"):
                field["required"] = False
            elif is_wrapped(annotation, "Required"):
                field["required"] = True
            else:
                field["required"] = typeddict_total
            return field

        if kind == "enum":
            return field

        value = node.value
        if value is None:
            field["required"] = True
            return field

        is_field_call = isinstance(value, ast.Call) and decorator_name(value.func) in {
            "Field",
            "field",
        }
        if not is_field_call:
            field["required"] = False
            field["default"] = literal_or_source(value)
            return field

        assert isinstance(value, ast.Call)
        required = True
        if value.args:
            default_node = value.args[0]
            if not (
                isinstance(default_node, ast.Constant) and default_node.value is Ellipsis
            ):
                required = False
                field["default"] = literal_or_source(default_node)
        for kw in value.keywords:
            if kw.arg == "default":
                if isinstance(kw.value, ast.Constant) and kw.value.value is Ellipsis:
                    required = True
                else:
                    required = False
                    field["default"] = literal_or_source(kw.value)
            elif kw.arg == "default_factory":
                required = False
                field["default_factory"] = ast.unparse(kw.value)
            elif kw.arg == "description":
                field["description"] = literal_or_source(kw.value)
            elif kw.arg == "exclude":
                field["exclude"] = literal_or_source(kw.value)
            elif kw.arg in FIELD_KWARGS_CONSTRAINTS:
                field["constraints"][kw.arg] = literal_or_source(kw.value)
            elif kw.arg is not None:
                field["constraints"][kw.arg] = literal_or_source(kw.value)
        field["required"] = required
        return field

    # ---- driver -----------------------------------------------------------

    def all_model_classes(self) -> list[str]:
        out = []
        for mname, mod in self.modules.items():
            if not mname.startswith("harbor.models"):
                continue
            for cname, cls in mod.classes.items():
                if self.class_kind(mname, cls) in {"pydantic", "typeddict", "enum"}:
                    out.append(f"{mname}:{cname}")
        return out

    def qualify(self, root: str) -> str | None:
        if ":" in root:
            module, name = root.split(":", 1)
            if module in self.modules and name in self.modules[module].classes:
                return root
            return None
        matches = [
            f"{m}:{root}"
            for m, mod in self.modules.items()
            if m.startswith("harbor.models") and root in mod.classes
        ]
        return matches[0] if len(matches) == 1 else (matches[0] if matches else None)

    def run(self, roots: list[str], include_all: bool) -> dict[str, Any]:
        qualified_roots: list[str] = []
        missing: list[str] = []
        for r in roots:
            q = self.qualify(r)
            if q:
                qualified_roots.append(q)
            else:
                missing.append(r)

        queue = list(qualified_roots)
        if include_all:
            queue += [q for q in self.all_model_classes() if q not in queue]

        models: dict[str, Any] = {}
        while queue:
            q = queue.pop(0)
            if q in models:
                continue
            info = self.extract_class(q)
            models[q] = info
            for ref in info["references"]:
                if ref not in models:
                    queue.append(ref)

        modules_used = sorted({m["module"] for m in models.values()})
        return {
            "harbor_version": find_version(self.pkg_dir),
            "package_dir": str(self.pkg_dir),
            "roots": qualified_roots,
            "missing_roots": missing,
            "models": models,
            "type_aliases": dict(sorted(self.type_aliases.items())),
            "module_constants": {
                m: self.modules[m].constants
                for m in modules_used
                if self.modules[m].constants
            },
            "unresolved_names": sorted(self.unresolved),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harbor_dir", type=Path)
    parser.add_argument(
        "--roots",
        help="Comma-separated root classes (bare name or module:Class).",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="Emit every pydantic/TypedDict/Enum class under harbor/models.",
    )
    parser.add_argument("--indent", type=int, default=2)
    args = parser.parse_args(argv)

    pkg_dir = locate_package(args.harbor_dir.expanduser())
    roots = args.roots.split(",") if args.roots else DEFAULT_ROOTS
    result = Extractor(pkg_dir).run([r.strip() for r in roots if r.strip()], args.all)
    json.dump(result, sys.stdout, indent=args.indent, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
