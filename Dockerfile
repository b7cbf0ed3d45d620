# studybot: the bot with its Discord, Slack and PostgreSQL extras, as a non-root user.
#   docker compose up -d          (see docker-compose.yml and .env.example)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# an unprivileged user owns nothing but its data folder
RUN groupadd --system --gid 10001 studybot \
    && useradd --system --uid 10001 --gid studybot --home-dir /home/studybot --create-home studybot \
    && mkdir -p /data && chown studybot:studybot /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY adapters ./adapters
COPY data ./data
RUN pip install ".[discord,slack,postgres]"

# the shipped question bank (an installed package cannot find it next to its source); an SQLite file in
# /data when no PostgreSQL URL is given; /healthz and /metrics on STUDYBOT_METRICS_PORT
ENV STUDYBOT_BANK_DIR=/app/data/questions \
    STUDYBOT_DATABASE_URL=sqlite:////data/studybot.db \
    STUDYBOT_METRICS_PORT=9100

USER studybot
# with SQLite, keep /data on a volume: docker run -v studybot-data:/data --env-file .env studybot
EXPOSE 9100 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('STUDYBOT_METRICS_PORT', '9100') + '/healthz', timeout=4)"]

CMD ["studybot"]
