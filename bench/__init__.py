"""The SQS emulator's benchmark: `python -m bench` (docs/performance.md).

cli.py          the options, and one run from the in-process figures to the verdicts
figures/        one module per figure; the in-process ones are programs run in
                interpreters of their own (the pyperf ones through harness.py)
harness.py      pyperf rounds alternated across checkouts (this one, --baseline's)
processes.py    every process started (servers, programs, wrk, helpers), CPU and RSS
targets.py      the servers compared and what each answers
wire.py         boto3 and raw-HTTP calls, queue fills
results.py      what a run measured, read by path
thresholds.py   the targets of bench/thresholds.toml and their verdicts
report.py       the tables, the verdicts, the JSON
pollers.py      the helper holding 2,000 long polls; wrk/ the saturation's Lua scripts
"""
