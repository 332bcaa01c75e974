"""--data-dir: what a restart brings back, what a SIGKILL loses under each --sync policy, and how an unusable data dir is refused."""
