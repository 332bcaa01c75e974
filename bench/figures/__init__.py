"""One module per figure (docs/performance.md describes each).

The one-client figures (send, batch_send, recv_delete, depth, long_poll, memory, fifo,
rss_drain, rss_heartbeat) export `run(server, client, args) -> dict` and say which
targets take them (WHO: all, storing, emulators), whether their rounds alternate
(REPEATED) and whether they restart the server (RESTARTS). The in-process ones
(inprocess, engine, traced_memory, local_depth, store_engine, store_app) are programs that
import the emulator measured, so nothing else imports them. latency (one client, one call
after another) and saturation (wrk) start each target fresh for each run; store runs the
persistence figures (store, store_app) and store_kill kills a loaded server.
"""
