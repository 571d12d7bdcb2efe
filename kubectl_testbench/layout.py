"""The one data layout shared by render and the shipped TestWorkflowTemplates.

Testkube mounts an emptyDir at ``/data`` that every step of an execution shares. The phase images read
and write paths relative to their working directory (``data/datasets/experiment.json`` …) and the image
sets no WORKDIR, so the templates pin ``workingDir: /``: relative paths then land on the shared volume,
and the inline dataset ConfigMap is mounted exactly where the run phase reads it.
"""

from __future__ import annotations

import posixpath

WORKING_DIR = "/"
DATA_DIR = "/data"
DATASET_RELATIVE = "data/datasets/experiment.json"
"""What the setup phase writes and the run phase reads, relative to the working directory."""
DATASET_PATH = posixpath.join(WORKING_DIR, DATASET_RELATIVE)
EXECUTED_PATH = "/data/experiments/executed_experiment.json"
EVALUATED_PATH = "/data/experiments/evaluated_experiment.json"
REPORT_PATH = "/data/results/evaluation_report.html"

TESTKUBE_NAMESPACE = "testkube"

SETUP_TEMPLATE = "setup-template"
RUN_TEMPLATE = "run-template"
EVALUATE_TEMPLATE = "evaluate-template"
PUBLISH_TEMPLATE = "publish-template"
VISUALIZE_TEMPLATE = "visualize-template"
PHASE_TEMPLATES = (SETUP_TEMPLATE, RUN_TEMPLATE, EVALUATE_TEMPLATE, PUBLISH_TEMPLATE, VISUALIZE_TEMPLATE)

TESTWORKFLOW_IMAGE = "ghcr.io/agentic-layer/testbench/testworkflows"
OPERATOR_IMAGE = "ghcr.io/agentic-layer/testbench/operator"
DEFAULT_IMAGE_TAG = "0.0.1"
"""The upstream release the shipped templates and operator target; --image-tag overrides it."""

MINIO_ENDPOINT_ENV = "MINIO_ENDPOINT"
MINIO_USER_ENV = "MINIO_ROOT_USER"
MINIO_PASSWORD_ENV = "MINIO_ROOT_PASSWORD"
MINIO_SETTINGS = (MINIO_ENDPOINT_ENV, MINIO_USER_ENV, MINIO_PASSWORD_ENV)
"""What the setup phase reads to reach S3 (testbench/setup.py ``create_s3_client``, agentic-layer-testbench 0.10.0)."""
MINIO_DEFAULT = "http://testkube-minio-service-testkube.testkube:9000"
"""The setup phase's MINIO_ENDPOINT default: Testkube's bundled MinIO, in the cluster."""
MINIO_DEFAULT_USER = "minio"
MINIO_DEFAULT_PASSWORD = "minio123"
"""The setup phase's MINIO_ROOT_USER/MINIO_ROOT_PASSWORD defaults (Testkube's bundled MinIO)."""
S3_REGION = "us-east-1"
"""The region the setup phase signs its requests for."""
