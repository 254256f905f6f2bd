# bench-lcores.sh - sourced by the pipeline benches (pipeline-bench.sh,
# pipeline-fig5.sh). bench_lcores W sets
#   map    the EAL --lcores map: rx, tx and cluster on lcore 0, the W
#          matching workers (lcores 1..W) after it, spread over the CPUs
#          there are;
#   match  "1, 2, ..., W": spated's lcores.match list.
bench_lcores() {
	local cpus w
	cpus=$(nproc)
	map="0@0" match=""
	for w in $(seq 1 "$1"); do
		map="$map,$w@$((w % cpus))"
		match="$match${match:+, }$w"
	done
}
