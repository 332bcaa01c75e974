// fauxqs for the benchmark: `node fauxqs.mjs PATH_TO/fauxqs/dist/app.js PORT`.
// Its launchers (dist/cli.js, dist/server.js) force its request log on, whatever
// FAUXQS_LOGGER says, and startFauxqs() listens on 0.0.0.0 (its `host` option only names
// the host in queue URLs); its documented buildApp() (README "Configurable queue URL host")
// with the log off, on loopback only, is the same app at the same cost a send (measured
// alternated, docs/performance.md).
const [app, port] = process.argv.slice(2);
const { buildApp } = await import(app);
await buildApp({ logger: false }).listen({ port: Number(port), host: "127.0.0.1" });
