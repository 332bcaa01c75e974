"""Real clients against the real server on loopback, grouped by what they prove:

    api/          the SQS API as boto3 sees it, in both protocols (AWS's behaviour, errors, wire shapes)
    server/       the emulator around the API: front door, guards, admin API, dashboard, event sources, CLI
    persistence/  --data-dir: restarts, SIGKILLs, unusable data dirs
    clients/      SDKs and libraries other than boto3
    oracle/       the same calls against moto, every difference named with AWS's evidence

The helpers beside them (servers.py, helpers.py, ...) and conftest.py's session server serve every group.
"""
