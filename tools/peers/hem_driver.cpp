// hem_driver.cpp - drives HEM5 (shiwanghua/HEM, Apache-2.0, built outside
// Spate's tree) on a Spate stream file of the rein workload (spate-gen
// --workload rein): subscriptions "aK>=lo,aK<=hi,..." on the whole world
// with no keywords, events "aK=v,...". Times insert (all subs, then
// initBits), match (every event) and delete + online re-insert of a
// sample, in process CPU time and wall time; prints one JSON line, and
// with --out FILE the match pairs "event_id<TAB>sub_id" (HEM's only patch:
// HEM5::match hands its bit set of non-matches to hem_driver_result).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "HEM5.h"

static std::vector<uint64_t> g_sub_ids; // dense index -> Spate id
static FILE *g_out;
static uint64_t g_event_id, g_pairs, g_hash;
static bool g_count_only; // --count-only: HEM's own count, no match set

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

// The matches are the zero bits below n. Read a word at a time
// (libstdc++ keeps a bitset as an array of unsigned long): a bit-by-bit
// loop over HEM's 2^20 bits would cost the driver more than HEM's match.
void hem_driver_result(const std::bitset<subs> *nonmatch, int n)
{
	static_assert(sizeof(*nonmatch) == subs / 8, "a bitset is its words");
	const unsigned long *w = reinterpret_cast<const unsigned long *>(nonmatch);
	if (g_count_only)
		return;
	for (int base = 0; base < n; base += 64) {
		unsigned long zeros = ~w[base / 64];
		if (n - base < 64)
			zeros &= (1UL << (n - base)) - 1;
		while (zeros) {
			int i = base + __builtin_ctzl(zeros);
			zeros &= zeros - 1;
			g_pairs++;
			g_hash += mix(g_event_id * 0x9e3779b97f4a7c15ULL ^ g_sub_ids[i]);
			if (g_out)
				fprintf(g_out, "%llu\t%llu\n", (unsigned long long)g_event_id,
					(unsigned long long)g_sub_ids[i]);
		}
	}
}

static double cpu_s()
{
	timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double wall_s()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static std::vector<std::string> split(const std::string &s, char c)
{
	std::vector<std::string> v;
	std::string cur;
	std::istringstream in(s);
	while (std::getline(in, cur, c))
		v.push_back(cur);
	return v;
}

static int attr_index(const std::string &name)
{
	if (name.size() < 2 || name[0] != 'a')
		return -1;
	return atoi(name.c_str() + 1);
}

int main(int argc, char **argv)
{
	const char *stream = nullptr, *out = nullptr;
	int n_del = 10000;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--count-only"))
			g_count_only = true;
		else if (!strcmp(argv[i], "--deletes") && i + 1 < argc)
			n_del = atoi(argv[++i]);
		else
			stream = argv[i];
	}
	if (!stream) {
		fprintf(stderr, "usage: hem-driver [--out PAIRS | --count-only] [--deletes N] "
				"STREAM.tsv\n");
		return 2;
	}
	std::ifstream in(stream);
	if (!in) {
		fprintf(stderr, "hem-driver: %s: cannot read\n", stream);
		return 1;
	}
	std::vector<IntervalSub> sub_list;
	std::vector<Pub> pub_list;
	std::vector<uint64_t> pub_ids;
	int max_att = -1, max_val = 0;
	std::string line;
	long line_no = 0;
	while (std::getline(in, line)) {
		line_no++;
		if (line.empty() || line[0] == '#')
			continue;
		std::vector<std::string> f = split(line, '\t');
		if (f[0] == "sub" && f.size() == 8) {
			IntervalSub s;
			s.id = (int)sub_list.size();
			for (const std::string &c : split(f[7], ',')) {
				size_t op = c.find_first_of("<>");
				int att = attr_index(c.substr(0, op));
				int v = atoi(c.c_str() + op + 2);
				if (att < 0 || c.compare(op + 1, 1, "=")) {
					fprintf(stderr, "%s:%ld: not a rein constraint: %s\n",
						stream, line_no, c.c_str());
					return 1;
				}
				max_att = std::max(max_att, att);
				auto it = std::find_if(
					s.constraints.begin(), s.constraints.end(),
					[&](const IntervalCnt &x) { return x.att == att; });
				if (it == s.constraints.end()) {
					s.constraints.push_back({ att, 0, 0 });
					it = s.constraints.end() - 1;
				}
				(c[op] == '>' ? it->lowValue : it->highValue) = v;
				max_val = std::max(max_val, v);
			}
			s.size = (int)s.constraints.size();
			sub_list.push_back(s);
			g_sub_ids.push_back(strtoull(f[1].c_str(), nullptr, 10));
		} else if (f[0] == "event" && f.size() == 6) {
			Pub p;
			p.id = (int)pub_list.size();
			for (const std::string &a : split(f[5], ',')) {
				size_t eq = a.find('=');
				int att = attr_index(a.substr(0, eq));
				max_att = std::max(max_att, att);
				p.pairs.push_back({ att, atoi(a.c_str() + eq + 1) });
				max_val = std::max(max_val, p.pairs.back().value);
			}
			p.size = (int)p.pairs.size();
			pub_list.push_back(p);
			pub_ids.push_back(strtoull(f[1].c_str(), nullptr, 10));
		} else {
			fprintf(stderr, "%s:%ld: not a rein-workload line\n", stream, line_no);
			return 1;
		}
	}
	if ((long)sub_list.size() > subs) {
		fprintf(stderr, "hem-driver: %zu subscriptions, HEM was built for %d\n",
			sub_list.size(), subs);
		return 1;
	}
	atts = max_att + 1; // HEM's globals: dimensions, value domain
	// values lie in [0, valDom): an interval may end on the domain's top
	valDom = max_val + 1;
	if (out && !(g_out = fopen(out, "w"))) {
		perror(out);
		return 1;
	}
	HEM5 hem(HEM5_DD);
	double c0 = cpu_s(), w0 = wall_s();
	for (const IntervalSub &s : sub_list)
		hem.insert(s);
	double c1 = cpu_s();
	hem.initBits();
	double c2 = cpu_s(), w2 = wall_s();
	for (size_t i = 0; i < pub_list.size(); i++) {
		int n = 0;
		g_event_id = pub_ids[i];
		hem.match(pub_list[i], n);
	}
	double c3 = cpu_s(), w3 = wall_s();
	// deletes of random live subscriptions, each put back online (HEM5's
	// own verification path): the index is the same afterwards
	std::mt19937 rng(7);
	n_del = std::min<int>(n_del, (int)sub_list.size());
	std::vector<int> pick(sub_list.size());
	for (size_t i = 0; i < pick.size(); i++)
		pick[i] = (int)i;
	std::shuffle(pick.begin(), pick.end(), rng);
	double cd = 0, ci = 0;
	for (int i = 0; i < n_del; i++) {
		double t0 = cpu_s();
		if (!hem.deleteSubscription(sub_list[pick[i]])) {
			fprintf(stderr, "hem-driver: delete of sub %d failed\n", pick[i]);
			return 1;
		}
		double t1 = cpu_s();
		hem.insert_online(sub_list[pick[i]]);
		cd += t1 - t0;
		ci += cpu_s() - t1;
	}
	if (g_out)
		fclose(g_out);
	printf("{\"peer\":\"HEM5DD\",\"match_set\":%s,\"subs\":%zu,\"events\":%zu,\"atts\":%d,"
	       "\"be\":%d,"
	       "\"insert_us_cpu\":%.3f,\"init_bits_s_cpu\":%.3f,\"build_s_wall\":%.3f,"
	       "\"event_us_cpu\":%.2f,\"event_us_wall\":%.2f,\"matches\":%llu,"
	       "\"matches_per_event\":%.2f,\"pair_hash\":\"%016llx\",\"deletes\":%d,"
	       "\"delete_us_cpu\":%.3f,\"insert_online_us_cpu\":%.3f,\"memory_mb\":%d}\n",
	       g_count_only ? "false" : "true", sub_list.size(), pub_list.size(), atts, be,
	       (c1 - c0) * 1e6 / sub_list.size(), c2 - c1, w2 - w0,
	       (c3 - c2) * 1e6 / pub_list.size(), (w3 - w2) * 1e6 / pub_list.size(),
	       (unsigned long long)g_pairs, (double)g_pairs / pub_list.size(),
	       (unsigned long long)g_hash, n_del, n_del ? cd * 1e6 / n_del : 0.0,
	       n_del ? ci * 1e6 / n_del : 0.0, hem.calMemory());
	return 0;
}
