#!/usr/bin/env python3
"""Writes the part of template.yaml that every function repeats: its log group, and an alarm on its errors and
one on its throttles, from the one table below.

The rest of template.yaml is written by hand; this part lies between two marker lines there, and
tests/test_template.py fails while it is not what this script writes. After changing the table (a function added,
renamed or given a condition), run it:

    python3 scripts/template.py           # rewrites template.yaml between the markers
    python3 scripts/template.py --check   # exits 1, changing nothing, where template.yaml differs

CloudFormation could repeat these itself (Fn::ForEach under the AWS::LanguageExtensions transform), but SAM CLI
expands Fn::ForEach only when asked (`--language-extensions`): a plain `sam build` or `sam deploy --guided` fails
on it. So the template stays plain, and its copies are written from here.
"""

import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"
BEGIN = "  # >>> written by scripts/template.py from its table: edit the table and run it, not these lines\n"
END = "  # <<< written by scripts/template.py\n"

LOGS = [
    # (logical id's prefix, the Condition it is deployed under, what its alarms say it does: None for no alarms)
    ("SignInSettings", "OwnUserPool", None),  # the sign-in settings' custom resource, run once per deploy
    ("HttpApiAccess", None, None),  # the HTTP API's access log
    ("Interface", None, "GET / and /agent-ui.js"),
    ("Config", None, "GET /config.json"),
    ("Healthz", None, "GET /healthz"),
    ("Interrupts", None, "GET /threads/{id}/interrupts and GET /interrupts"),
    ("Stream", None, "GET /threads/{id}/stream"),
    ("Messages", None, "POST /threads/{id}/messages"),
    ("Resume", None, "POST /threads/{id}/resume and POST /interrupts/answers"),
    ("Links", None, "GET and POST /links/{link}"),
    ("Rollback", None, "POST /threads/{id}/rollback"),
    ("Feedback", None, "POST /threads/{id}/feedback"),
    ("Slack", "HasSlack", "POST /slack/actions (Slack's clicks)"),
    ("Sweep", None, "The sweep (runs whose worker died stay stuck until it works)"),
    ("Clock", None, "The clock (pauses past their deadline wait, and reminders go unsent, until it works)"),
    ("FanOut", "Announces", "The fan-out (the webhook and the channels)"),
]
"""Each one's log group is <prefix>Logs; a function's alarms watch <prefix>Function."""

FAILED = (
    "the function failed (a timeout, a crash, or a cold start that could not read its secret); {name}Logs says which"
)
THROTTLED = "Lambda refused invocations (the account's or region's concurrency is used up)"


def condition(name: str | None) -> str:
    return f"    Condition: {name}\n" if name else ""


def log_group(name: str, deployed_if: str | None) -> str:
    return f"""  {name}Logs:
    Type: AWS::Logs::LogGroup
{condition(deployed_if)}    DeletionPolicy: Delete
    UpdateReplacePolicy: Delete
    Properties:
      RetentionInDays: !Ref LogRetentionInDays
"""


def alarm(name: str, deployed_if: str | None, metric: str, description: str) -> str:
    return f"""  {name}{metric}:
    Type: AWS::CloudWatch::Alarm
{condition(deployed_if)}    Properties:
      AlarmDescription: >-
        {description}
      Namespace: AWS/Lambda
      MetricName: {metric}
      Dimensions: [{{Name: FunctionName, Value: !Ref {name}Function}}]
      Statistic: Sum
      Period: 300
      EvaluationPeriods: 1
      Threshold: 1
      ComparisonOperator: GreaterThanOrEqualToThreshold
      TreatMissingData: notBreaching
      AlarmActions: [!If [HasAlarmTopicArn, !Ref AlarmTopicArn, !Ref AlarmTopic]]
      OKActions: [!If [HasAlarmTopicArn, !Ref AlarmTopicArn, !Ref AlarmTopic]]
"""


def generated() -> str:
    blocks = []
    for name, deployed_if, says in LOGS:
        blocks.append(log_group(name, deployed_if))
        if says:
            blocks.append(alarm(name, deployed_if, "Errors", f"{says}: {FAILED.format(name=name)}."))
            blocks.append(alarm(name, deployed_if, "Throttles", f"{says}: {THROTTLED}."))
    return "\n" + "\n".join(blocks) + "\n"


def written(template: str) -> str:
    """The template with what lies between the markers replaced by what the table makes."""
    head, found, rest = template.partition(BEGIN)
    _, ended, tail = rest.partition(END)
    if not (found and ended):
        raise SystemExit(f"template.yaml has lost a marker line: {BEGIN.strip()!r} ... {END.strip()!r}")
    return head + BEGIN + generated() + END + tail


def main(args: list[str]) -> int:
    text = TEMPLATE.read_text()
    if written(text) == text:
        return 0
    if args == ["--check"]:
        print("template.yaml is not what scripts/template.py writes: run python3 scripts/template.py", file=sys.stderr)
        return 1
    TEMPLATE.write_text(written(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
