# local-agent: `make chat` installs everything and starts a chat; `make test` installs, lints and tests.
# Re-running is cheap: each step is skipped when its result is already in place.

PYTHON     ?= python3.11
VENV       ?= .venv
# Another torch build (e.g. CUDA): make install TORCH_SPEC="torch==2.13.0" TORCH_INDEX="--index-url URL"
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
LLAMA_CPP_VERSION ?= 0.3.36
# A portable x86-64 build: GGML_NATIVE would compile AMX kernels wherever the build machine
# advertises AMX, and some VMs advertise it without enabling it (SIGILL, or wrong Q4_1 results).
# No AVX-512 build either, even where the CPU has it: its float kernels sum in another order and
# changed 8 of 12 greedy answers of the default model, for no decode and a few % prompt gain
# (AVX-VNNI kept the answers but gained nothing; scripts/greedy_outputs.py compares builds).
# For a CUDA build: make install LLAMA_CMAKE_ARGS="-DGGML_CUDA=on" WHEELHOUSE=~/.cache/local-agent/wheels-cuda
# AMX and dynamically loaded CPU backends stay off (their defaults, said out loud).
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DGGML_BACKEND_DL=OFF
# llama-cpp-python compiles from source (~7 min on 2 cores); the wheel is kept here and reused.
LLAMA_VARIANT ?= avx2
WHEELHOUSE ?= $(HOME)/.cache/local-agent/wheels-$(LLAMA_VARIANT)
# llama.cpp's own llama-bench and llama-batched-bench, built from the same source and flags
# (`make llama-bench`, `make llama-batched-bench`; the benchmark's speed and batching sections
# compare with them), with their shared libraries beside them.
LLAMA_BENCH_DIR ?= $(HOME)/.cache/local-agent/llama-bench-$(LLAMA_VARIANT)
# The llama-cpp-python source (its GGUF converter makes the memory embedder), kept here too;
# scripts/convert_embedder.py records where in the venv, so it is found whatever HOME is later.
SDIST_CACHE ?= $(HOME)/.cache/local-agent/sdist
# Two test processes (pytest-xdist), each test file in one of them (its module fixtures load once):
# the suite in 9 min 34 s instead of 13 min 0 s on 2 cores (docs/development.md). PYTEST_ARGS= runs one.
PYTEST_ARGS ?= -n 2 --dist loadfile

PY    := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LLAMA_WHEEL_GLOB := $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl

.PHONY: install models chat lint test test-fast bench llama-bench llama-batched-bench eval-locomo eval-distill eval-companion clean

install: $(STAMP) models

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "$(TORCH_SPEC)" $(TORCH_INDEX)
	@$(PY) -c "import llama_cpp" 2>/dev/null || { \
	  ls $(LLAMA_WHEEL_GLOB) >/dev/null 2>&1 || { \
	    echo "Building llama-cpp-python $(LLAMA_CPP_VERSION) from source (about 7 minutes on 2 cores)..."; \
	    CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
	      $(PY) -m pip wheel -q --no-cache-dir --no-deps -w $(WHEELHOUSE) llama-cpp-python==$(LLAMA_CPP_VERSION); }; \
	  $(PY) -m pip install -q $(LLAMA_WHEEL_GLOB); }
# dev: what the tests need, the [gpu] extra (bitsandbytes), the [cluster] extra (ray) and the linters
	$(PY) -m pip install -q -e ".[dev]"
# instructor (a structured-output client the tests run against `serve`) caps jiter below 0.15, which
# the openai release pydantic-ai needs is past; it runs fine on the newer jiter, so it goes in without
# its own pins (its other dependencies are in the dev extra).
	$(PY) -m pip install -q --no-deps "instructor==1.17.0"
	touch $(STAMP)

models: $(STAMP)
	$(PY) scripts/fetch_models.py
	$(PY) scripts/convert_embedder.py --cache $(SDIST_CACHE)

chat: install
	$(VENV)/bin/local-agent chat

# ruff (lint and import order) and mypy, both configured in pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: install lint
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: install
	$(PY) -m pytest -m "not model and not slow" $(PYTEST_ARGS)

bench: install
	$(PY) scripts/benchmark.py --quick

llama-bench: $(LLAMA_BENCH_DIR)/llama-bench
llama-batched-bench: $(LLAMA_BENCH_DIR)/llama-batched-bench

# Each tool is built on its own (tools/llama-bench, tools/batched-bench); both come from the same
# source and flags, so the shared libraries they leave side by side are the same build.
$(LLAMA_BENCH_DIR)/llama-bench $(LLAMA_BENCH_DIR)/llama-batched-bench: $(LLAMA_BENCH_DIR)/%:
	@ls $(SDIST_CACHE)/llama_cpp_python-$(LLAMA_CPP_VERSION).tar.gz >/dev/null 2>&1 || \
	  $(PYTHON) -m pip download -q --no-deps --no-binary :all: -d $(SDIST_CACHE) llama-cpp-python==$(LLAMA_CPP_VERSION)
	rm -rf $(LLAMA_BENCH_DIR).$*.src && mkdir -p $(LLAMA_BENCH_DIR).$*.src
	tar -xzf $(SDIST_CACHE)/llama_cpp_python-$(LLAMA_CPP_VERSION).tar.gz -C $(LLAMA_BENCH_DIR).$*.src --strip-components=1
	cmake -S $(LLAMA_BENCH_DIR).$*.src/vendor/llama.cpp -B $(LLAMA_BENCH_DIR).$*.src/build -DCMAKE_BUILD_TYPE=Release \
	  -DBUILD_SHARED_LIBS=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
	  -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=ON $(LLAMA_CMAKE_ARGS)
	nice cmake --build $(LLAMA_BENCH_DIR).$*.src/build --target $* -j2
	mkdir -p $(LLAMA_BENCH_DIR)
	cp -P $(LLAMA_BENCH_DIR).$*.src/build/bin/$* $(LLAMA_BENCH_DIR).$*.src/build/bin/lib*.so* $(LLAMA_BENCH_DIR)/
	rm -rf $(LLAMA_BENCH_DIR).$*.src

eval-locomo: install
	$(PY) scripts/eval_locomo.py ../shared/data/locomo-dev.json

eval-distill: install
	$(PY) scripts/eval_distill.py ../shared/data/distill-dev.jsonl

eval-companion: install
	$(PY) scripts/eval_companion.py --split all

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
