"""Build the compatibility table (docs/reference/compatibility.md) from what the test servers served.

The compat tests run their servers with SQS_COMPAT_LOG_DIR set, so every
request is logged with its protocol, operation, status and client (the first
User-Agent token). This script reads those logs and writes the table
operation x (client, protocol): "yes" where that client got a successful
answer to that operation, "errors" where it only got error answers.

    python scripts/compat_table.py LOG_DIR            # print the table
    python scripts/compat_table.py LOG_DIR --write docs/reference/compatibility.md
"""

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import botocore.session

LINE = re.compile(r"emulator\.requests: \S+ \S+ (json|query) (\w+) (\d{3}) [\d.]+ms client=(\S+)")
START, END = "<!-- compat-table:start -->", "<!-- compat-table:end -->"
CLIENT_NAMES = {"boto3": "boto3", "aws-cli": "AWS CLI", "aws-sdk-js": "JS SDK v3", "aws-sdk-go-v2": "Go SDK v2"}
# Clients whose User-Agent names no version of theirs: kombu's asynchronous pycurl client (Celery's
# SQS transport), the dashboard in headless chromium, AsyncAws on Symfony HttpClient
UNVERSIONED = {"pycurl": "kombu/pycurl", "browser": "dashboard (browser)", "symfony": "AsyncAws (Symfony HttpClient)"}


def client_label(token: str, protocol: str) -> str:
    name, _, version = token.partition("/")
    # urllib's version is the test's Python, not a client's: one raw HTTP column per protocol
    if token == "-" or not version or name.lower() == "python-urllib":
        return f"raw HTTP ({protocol})"
    if name in UNVERSIONED:  # the server names these (emulator/server/app.py _client)
        return f"{UNVERSIONED[name]} ({protocol})"
    major_minor = ".".join(version.split(".")[:2])
    return f"{CLIENT_NAMES.get(name.lower(), name)} {major_minor} ({protocol})"


def collect(log_dir: Path) -> dict[str, dict[str, set[str]]]:
    """operation -> column -> {"ok", "error"}"""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(log_dir.rglob("*.log")):
        for match in LINE.finditer(path.read_text(errors="replace")):
            protocol, operation, status, client = match.groups()
            seen[operation][client_label(client, protocol)].add("ok" if status.startswith("2") else "error")
    return seen


def table(seen: dict[str, dict[str, set[str]]]) -> str:
    operations = botocore.session.get_session().get_service_model("sqs").operation_names
    columns = sorted({column for by_column in seen.values() for column in by_column})
    rows = ["| operation | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for operation in operations:
        cells = []
        for column in columns:
            outcomes = seen.get(operation, {}).get(column, set())
            cells.append("yes" if "ok" in outcomes else "errors" if outcomes else "")
        rows.append(f"| {operation} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log_dir", type=Path)
    parser.add_argument("--write", type=Path, help="replace the table between the markers in this file")
    args = parser.parse_args()
    seen = collect(args.log_dir)
    if not seen:
        print(f"no request logs under {args.log_dir}", file=sys.stderr)
        return 1
    text = table(seen)
    if args.write:
        readme = args.write.read_text()
        before, _, rest = readme.partition(START)
        _, _, after = rest.partition(END)
        args.write.write_text(f"{before}{START}\n{text}\n{END}{after}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
