"""``kubectl testbench init``."""

from __future__ import annotations

import click

from kubectl_testbench.cli.common import EXIT_FINDINGS, fail
from kubectl_testbench.cli.output import emit


@click.command()
@click.argument("name")
@click.option("--agent", required=True, help="Name of the Agent to evaluate (spec.agentRef.name).")
@click.option("--agent-namespace", default=None, help="Namespace of the Agent (default: the Experiment's).")
@click.option("-n", "--namespace", default=None, help="Namespace of the Experiment.")
@click.option("--dataset", type=click.Choice(("inline", "s3", "url")), default="inline", show_default=True,
              help="Where the dataset comes from.")
@click.option("--s3-bucket", default=None, metavar="BUCKET",
              help="With --dataset s3: the bucket (spec.dataset.s3.bucket). Default: datasets.")
@click.option("--s3-key", default=None, metavar="KEY",
              help="With --dataset s3: the object key (spec.dataset.s3.key). Default: NAME/experiment.json.")
@click.option("--gateway", default=None, help="AiGateway for the LLM judge (spec.aiGatewayRef.name).")
@click.option("--gateway-namespace", default=None, help="Namespace of the AiGateway.")
@click.option("--schedule", default=None, metavar="CRON", help='Run on a schedule, e.g. "0 3 * * *".')
@click.option("--timezone", default=None, help="IANA timezone of the schedule, e.g. Europe/Berlin.")
@click.option("--trigger", is_flag=True, help="Run whenever the agent's Deployment is rolled out.")
@click.option("--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write to this file (atomically) instead of stdout; an existing file is kept unless --force.")
@click.option("--force", is_flag=True, help="With --output-file: replace the file if it exists.")
def init(name: str, agent: str, agent_namespace: str | None, namespace: str | None, dataset: str,
         s3_bucket: str | None, s3_key: str | None, gateway: str | None, gateway_namespace: str | None,
         schedule: str | None, timezone: str | None, trigger: bool, output_file: str | None, force: bool) -> None:
    """Write a valid starter Experiment NAME for agent --agent (stdout, or --output-file).

    Without --gateway the Experiment is valid but validate --strict fails on it (semantic/no-gateway) until it
    names an AI gateway or a testbench-defaults.yaml beside it names a default one: a notice on stderr says so.
    """
    from kubectl_testbench.cli.gateway_notice import gateway_known, no_gateway_notice
    from kubectl_testbench.emit.yamlout import dump
    from kubectl_testbench.rules.semantic import SEMANTIC_NO_GATEWAY
    from kubectl_testbench.safe_text import escape_controls
    from kubectl_testbench.starter import SCHEMA_COMMENT, starter
    from kubectl_testbench.validate.engine import validate_text
    from kubectl_testbench.validate.report import text_line

    if dataset != "s3" and (s3_bucket is not None or s3_key is not None):
        given = [f for f, v in (("--s3-bucket", s3_bucket), ("--s3-key", s3_key)) if v is not None]
        fail(f"{' and '.join(given)} {'describe' if len(given) > 1 else 'describes'} an S3 dataset: add --dataset s3")
    text = SCHEMA_COMMENT + dump(starter(
        name, agent, namespace=namespace, agent_namespace=agent_namespace, dataset=dataset, gateway=gateway,
        gateway_namespace=gateway_namespace, schedule=schedule, timezone=timezone, trigger=trigger,
        s3_bucket=s3_bucket, s3_key=s3_key))
    result = validate_text(text, output_file or "<init>")
    # every finding but the missing gateway (the notice below) comes from an option's value: refuse it
    refused = [d for d in result.diagnostics if d.rule != SEMANTIC_NO_GATEWAY.id and d.severity.value != "info"]
    if refused:
        for d in refused:
            click.echo(text_line(d).rstrip("\n"), err=True)
        fail("the options give an invalid Experiment; nothing was written", EXIT_FINDINGS)
    if output_file is None or force:
        emit(text, output_file)
    else:
        from kubectl_testbench.emit.files import write_new_atomic

        try:
            write_new_atomic(output_file, text)
        except FileExistsError:
            fail(f"{output_file} already exists: nothing was written (pass --force to replace it)", EXIT_FINDINGS)
        except OSError as err:
            fail(f"cannot write {output_file}: {err.strerror or err}", EXIT_FINDINGS)
    if output_file is not None:
        click.echo(f"wrote Experiment {name} to {escape_controls(output_file)}", err=True)
    if gateway is None and not gateway_known(output_file):
        click.echo(no_gateway_notice(), err=True)
