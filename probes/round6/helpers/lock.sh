slow_run() { OB run --judge scripted:default,delay=0.05 --agent scripted:default,delay=0.05 --concurrency 1 --tasks arith --limit 3 --protocols qa_without_article,debate --output "$1" --quiet >o1 2>e1 & P1=$!; for i in $(seq 50); do [ -f "$1/results.sqlite" ] && break; sleep 0.1; done; sleep 0.5; }
second_refused() { OB "$@" >o2 2>e2; R2=$?; kill -0 $P1 2>/dev/null; ALIVE=$?; }
