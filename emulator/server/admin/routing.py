"""The admin API's routing map: werkzeug's Map of every route's Rule, each rule's endpoint
the function that answers it. docs/reference/admin-api.md is rendered from it (reference.py).
"""

from werkzeug.routing import Map

from emulator.server.admin import error_rules, event_sources, histories, routes, ui

# Requests are matched as "/_emulator/" + what follows, without slashes at either end
# (`/_emulator/health/` is /_emulator/health; admin/__init__.py), so no rule needs a redirect.
MAP = Map(
    [*ui.RULES, *routes.RULES, *event_sources.RULES, *error_rules.RULES, *histories.RULES],
    strict_slashes=False,
    merge_slashes=False,
    redirect_defaults=False,
)
