# Thin wrapper over CMake: `make run` and `make test` are the whole setup.
#   make run                     build the tool alone and run the course config
#   make test                    build everything (tests, benchmarks) and run ctest
#   make bench                   build everything and print the speed figures
#   make install PREFIX=DIR      install bin/distcalc and share/distcalc under DIR
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local

.PHONY: all deps configure tool build run test bench install clean

all: build

deps:
	@sh scripts/deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) >/dev/null

# the command-line tool and its library only: no tests, no benchmarks
tool: configure
	@cmake --build $(BUILD) -j $(JOBS) --target distcalc

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: tool
	./$(BUILD)/distcalc --config configs/systems.json --seed 7

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	sh bench/run.sh $(BUILD)

install: tool
	cmake --install $(BUILD) --prefix "$(PREFIX)"

clean:
	rm -rf $(BUILD)
