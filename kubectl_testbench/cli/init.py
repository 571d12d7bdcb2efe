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
@click.option("--gateway", default=None, help="AiGateway for the LLM judge (spec.aiGatewayRef.name).")
@click.option("--gateway-namespace", default=None, help="Namespace of the AiGateway.")
@click.option("--schedule", default=None, metavar="CRON", help='Run on a schedule, e.g. "0 3 * * *".')
@click.option("--timezone", default=None, help="IANA timezone of the schedule, e.g. Europe/Berlin.")
@click.option("--trigger", is_flag=True, help="Run whenever the agent's Deployment is rolled out.")
@click.option("--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write to this file (atomically) instead of stdout; an existing file is kept unless --force.")
@click.option("--force", is_flag=True, help="With --output-file: replace the file if it exists.")
def init(name: str, agent: str, agent_namespace: str | None, namespace: str | None, dataset: str,
         gateway: str | None, gateway_namespace: str | None, schedule: str | None, timezone: str | None,
         trigger: bool, output_file: str | None, force: bool) -> None:
    """Write a valid starter Experiment NAME for agent --agent (stdout, or --output-file)."""
    from kubectl_testbench.emit.yamlout import dump
    from kubectl_testbench.starter import SCHEMA_COMMENT, starter
    from kubectl_testbench.validate.engine import validate_text
    from kubectl_testbench.validate.report import text_line

    text = SCHEMA_COMMENT + dump(starter(
        name, agent, namespace=namespace, agent_namespace=agent_namespace, dataset=dataset, gateway=gateway,
        gateway_namespace=gateway_namespace, schedule=schedule, timezone=timezone, trigger=trigger))
    result = validate_text(text, output_file or "<init>")
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    if errors:
        for d in errors:
            click.echo(text_line(d).rstrip("\n"), err=True)
        fail("the options give an invalid Experiment; nothing was written", EXIT_FINDINGS)
    if output_file is None or force:
        emit(text, output_file)
        return
    from kubectl_testbench.emit.files import write_new_atomic

    try:
        write_new_atomic(output_file, text)
    except FileExistsError:
        fail(f"{output_file} already exists: nothing was written (pass --force to replace it)", EXIT_FINDINGS)
    except OSError as err:
        fail(f"cannot write {output_file}: {err.strerror or err}", EXIT_FINDINGS)
