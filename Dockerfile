# The emulator in a container: docker build -t sqs-emulator . && docker run -p 9324:9324 sqs-emulator
#
# Two build arguments:
#   BASE        a Python image (Debian-based: it has useradd); both stages use it.
#   WHEELHOUSE  a folder of the build context holding the project's wheel and its
#               dependencies' wheels (`pip wheel . -w wheelhouse`); when set, the image
#               installs from it alone, with no package index (a build with no route to one).
# Two environment variables set where it listens inside: SQS_EMULATOR_HOST (0.0.0.0) and
# SQS_EMULATOR_PORT (9324); every other option is a flag after the image's name or its
# SQS_EMULATOR_* variable (SQS_EMULATOR_ALLOWED_HOSTS=sqs lets a compose service name reach it).
# Under podman: podman run --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 ..., or runc may
# refuse podman's default limits before the container starts (docs/guides/docker.md, "Under podman").
ARG BASE=python:3.12-slim

FROM ${BASE} AS build
ARG WHEELHOUSE=
COPY . /src
# A venv: Debian's own python3 is an externally managed environment, and the venv
# moves whole into the final stage, which has no build tools and no copy of the source.
RUN python3 -m venv /opt/sqs-emulator \
 && if [ -n "$WHEELHOUSE" ]; then \
        /opt/sqs-emulator/bin/pip install --no-cache-dir --no-index --find-links "/src/$WHEELHOUSE" sqs-emulator; \
    else \
        /opt/sqs-emulator/bin/pip install --no-cache-dir /src; \
    fi \
 && /opt/sqs-emulator/bin/pip uninstall --yes pip

FROM ${BASE}
COPY --from=build /opt/sqs-emulator /opt/sqs-emulator
# Not root; its home is where a --data-dir volume goes (a new named volume takes its owner).
RUN useradd --uid 10001 --user-group --no-log-init --home-dir /var/lib/sqs-emulator --create-home sqs-emulator
USER sqs-emulator
WORKDIR /var/lib/sqs-emulator
ENV PATH=/opt/sqs-emulator/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    SQS_EMULATOR_HOST=0.0.0.0 \
    SQS_EMULATOR_PORT=9324
EXPOSE 9324
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/_emulator/health' % os.environ['SQS_EMULATOR_PORT'], timeout=2)"]
ENTRYPOINT ["sqs-emulator"]
