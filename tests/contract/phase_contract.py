"""The phase image's run-time contract (../shared/reference/testbench-upstream/image/SOURCES.md), as checks on a
resolved workflow.

Each phase is ``uv run python3 -m testbench.<phase> …`` (Dockerfile@84cbca3:26) with every data path relative
to the working directory; phases hand data to each other only through files under ``data/``, so they must all
work in one directory on Testkube's shared ``/data`` volume. Per phase, what must hold:

- setup (our dispatcher, ``-c SETUP_SCRIPT datasetUrl bucket key``): an ``s3://bucket/key`` or http(s) URL, or
  bucket and key; the object key / URL path ends in ``.json`` (setup.py ``parse_experiment``); the MinIO
  variables, when set, are not empty (an empty one goes to boto3 as is). Writes data/datasets/experiment.json.
- run: two positionals, an absolute http(s) agent URL and the experiment name (run.py:184-190); reads
  data/datasets/experiment.json (``--input`` default) and writes data/experiments/executed_experiment.json.
- evaluate: no positionals (evaluate.py:164-178); ``OPENAI_API_KEY`` set and non-empty (the judge client is
  ``AsyncOpenAI()``; openai 2.54.0 refuses an empty key and every metric is skipped); ``OPENAI_BASE_URL``, when
  set, a non-empty absolute URL (an empty one is taken as the base URL itself).
- publish: three positionals, experiment name, execution id and number (publish.py:229-240);
  ``OTEL_EXPORTER_OTLP_ENDPOINT``, when set, not empty (an empty one becomes ``http://`` and the flush fails).
- visualize: three positionals, the execution number an integer (visualize.py:1485-1497, ``type=int``).
"""

from __future__ import annotations

import json
import posixpath
from urllib.parse import urlsplit

from kubectl_testbench import layout
from kubectl_testbench.install.templates import SETUP_SCRIPT
from kubectl_testbench.render.resolve import ResolvedStep, ResolvedWorkflow
from tests.contract.image_models import experiment_problems

PHASES = ("setup", "run", "evaluate", "publish", "visualize")
ENTRYPOINT = ["uv", "run", "python3"]
NON_EMPTY_WHEN_SET = ("MINIO_ENDPOINT", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD", "OTEL_EXPORTER_OTLP_ENDPOINT")
"""Read with ``os.getenv(name, default)`` or an ``is None`` check: set-but-empty is passed on and breaks the
phase. (OPENAI_* are checked on evaluate, the only phase that reads them.)"""
DATASET = layout.DATASET_RELATIVE
EXECUTED = "data/experiments/executed_experiment.json"
EVALUATED = "data/experiments/evaluated_experiment.json"
SHARED = "/data"


def phase_of(step: ResolvedStep) -> str | None:
    """Which phase a step runs (None: not a phase step)."""
    if step.args[:2] == ["-c", SETUP_SCRIPT]:
        return "setup"
    if len(step.args) >= 2 and step.args[0] == "-m" and step.args[1].startswith("testbench."):
        return step.args[1].removeprefix("testbench.")
    return None


def _positionals(step: ResolvedStep) -> list[str]:
    return step.args[2:]


def _absolute_http(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def setup_source(step: ResolvedStep) -> tuple[str, str, str] | str:
    """What the dispatcher will fetch, decided as SETUP_SCRIPT decides: ("s3", bucket, key), ("url", url, ""),
    or why it will fail."""
    if len(step.args) != 5:
        return f"setup takes datasetUrl, bucket and key, got {len(step.args) - 2} arguments"
    url, bucket, key = step.args[2:]
    if url.startswith("s3://"):
        bucket, _, key = url[len("s3://"):].partition("/")
        return ("s3", bucket, key) if bucket and key else f"datasetUrl {url!r} is not s3://<bucket>/<key>"
    if url.startswith(("http://", "https://")):
        return ("url", url, "")
    if url:
        return f"datasetUrl {url!r} is neither s3:// nor http(s)://"
    return ("s3", bucket, key) if bucket and key else "no dataset: neither datasetUrl nor bucket and key"


def _file_at(step: ResolvedStep, relative: str) -> str:
    return posixpath.normpath(posixpath.join(step.working_dir or "/", relative))


def problems(workflow: ResolvedWorkflow, dataset_mode: str) -> list[str]:
    """Every way ``workflow`` breaks the phase contract for a dataset of ``dataset_mode`` (inline, s3, url)."""
    out: list[str] = []
    phases = [phase_of(s) for s in workflow.steps]
    expected = (["setup"] if dataset_mode != "inline" else []) + ["run", "evaluate", "publish", "visualize"]
    if phases != expected:
        out.append(f"phases {phases}, expected {expected}")
    produced: dict[str, str] = {}
    for step, phase in zip(workflow.steps, phases, strict=True):
        if phase is None:
            continue
        at = f"{phase}:"
        out += [f"{at} {p}" for p in _common(step)]
        if phase == "setup":
            source = setup_source(step)
            if isinstance(source, str):
                out.append(f"{at} {source}")
            else:
                mode, first, key = source
                path = urlsplit(first).path if mode == "url" else key
                if mode != dataset_mode:
                    out.append(f"{at} fetches {mode}, the dataset is {dataset_mode}")
                if not path.lower().endswith(".json"):
                    out.append(f"{at} {path!r} does not end in .json (setup.py parse_experiment)")
            if any(f.path == _file_at(step, DATASET) for f in step.files):
                out.append(f"{at} a mounted file shadows the dataset it writes")
            produced[_file_at(step, DATASET)] = "setup"
        elif phase == "run":
            args = _positionals(step)
            if len(args) != 2 or not _absolute_http(args[0]) or not args[1]:
                out.append(f"{at} needs an absolute http(s) agent URL and the experiment name, got {args}")
            dataset = _file_at(step, DATASET)
            mounted = [f for f in step.files if f.path == dataset]
            if dataset_mode == "inline":
                if not mounted:
                    out.append(f"{at} nothing mounted at {dataset}, where it reads the dataset")
                elif mounted[0].content is not None:
                    try:
                        document = json.loads(mounted[0].content)
                    except ValueError as err:
                        out.append(f"{at} the mounted dataset is not JSON: {err}")
                    else:
                        out += [f"{at} dataset {p}" for p in experiment_problems(document)]
                else:
                    out.append(f"{at} the mounted dataset's content is unknown")
            elif produced.get(dataset) != "setup":
                out.append(f"{at} reads {dataset}, which no earlier step writes")
            produced[_file_at(step, EXECUTED)] = "run"
        elif phase == "evaluate":
            if _positionals(step):
                out.append(f"{at} takes no positional arguments, got {_positionals(step)}")
            if produced.get(_file_at(step, EXECUTED)) != "run":
                out.append(f"{at} reads {_file_at(step, EXECUTED)}, which run does not write")
            key = step.env.get("OPENAI_API_KEY")
            if key is None or (key.value_from is None and not key.value):
                out.append(f"{at} OPENAI_API_KEY is unset or empty: AsyncOpenAI() refuses it, every metric is skipped")
            base = step.env_value("OPENAI_BASE_URL")
            if base is not None and not _absolute_http(base):
                out.append(f"{at} OPENAI_BASE_URL {base!r} is not an absolute http(s) URL")
            produced[_file_at(step, EVALUATED)] = "evaluate"
        elif phase in ("publish", "visualize"):
            args = _positionals(step)
            if len(args) != 3 or not all(args):
                out.append(f"{at} needs experiment name, execution id and number, got {args}")
            elif phase == "visualize" and not args[2].lstrip("-").isdigit():
                out.append(f"{at} execution number {args[2]!r} is not an integer (argparse type=int)")
            if produced.get(_file_at(step, EVALUATED)) != "evaluate":
                out.append(f"{at} reads {_file_at(step, EVALUATED)}, which evaluate does not write")
    return out


def _common(step: ResolvedStep) -> list[str]:
    out: list[str] = []
    if not step.image.startswith(layout.TESTWORKFLOW_IMAGE + ":"):
        out.append(f"image {step.image!r} is not the phase image")
    if step.command != ENTRYPOINT:
        out.append(f"runs {step.command}, not the image's {ENTRYPOINT}")
    if not _file_at(step, "data").startswith(SHARED):
        out.append(f"working directory {step.working_dir!r} puts data/ outside the shared {SHARED} volume")
    for name in NON_EMPTY_WHEN_SET:
        value = step.env.get(name)
        if value is not None and value.value_from is None and not value.value:
            out.append(f"{name} is set but empty")
    return out
