"""What every answer of the admin API and the dashboard carries, whoever asked.

No page of another origin may frame the dashboard (clickjacking of its send, purge,
delete and redrive buttons): `frame-ancestors 'none'` for browsers that read CSP,
`X-Frame-Options: DENY` for those that do not. `nosniff`: a browser takes each answer
as the type it names (a JSON answer quoting a message body is never run as a script).
The rest of the policy lets the dashboard load only its own files, so a body shown in
it could not bring in code even if the page had a flaw.
"""

from werkzeug.wrappers import Response

POLICY = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}


def secured(response: Response) -> Response:
    response.headers.update(HEADERS)
    return response
