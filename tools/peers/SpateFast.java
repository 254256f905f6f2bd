// SpateFast.java - drive FAST (LFAST, ThatUdeshUK/fast_extension,
// baselines/fast) with a Spate stream file (docs/stream-format.md of Spate).
// usage: java SpateFast STREAM.tsv [rounds] [matches-out]
// Coordinates map affinely from degrees to FAST's [0, 10000) space, so
// containment is kept (Spate's 1e-7 degree is 2.8e-6 FAST units, far above
// a double's rounding there). Keywords sorted (FAST's trie takes them in
// order). A delete expires the query (et = -1: FAST's own lazy removal).
// Subscriptions with constraints or without keywords are refused (FAST
// has neither): use streams without them. Each round builds a fresh index
// on the same stream (the first rounds warm the JVM); every round prints
// one JSON line: insert/delete us, events/s, heap after inserts, matches
// and the same order-free hash spate-bench prints.
import edu.purdue.cs.fast.baselines.fast.LFAST;
import edu.purdue.cs.fast.baselines.fast.messages.LDataObject;
import edu.purdue.cs.fast.baselines.fast.messages.LMinimalRangeQuery;
import edu.purdue.cs.fast.models.Point;
import edu.purdue.cs.fast.models.Query;
import edu.purdue.cs.fast.models.Rectangle;
import java.io.*;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.*;
import java.util.*;

public class SpateFast {
    // The stream's extent (its bounding box, as FAST's experiments scale
    // their data to the index space) -> [0, 9999]^2, affinely.
    static long x0 = Long.MAX_VALUE, y0 = Long.MAX_VALUE, x1 = Long.MIN_VALUE, y1 = Long.MIN_VALUE;
    static double sx, sy;

    static long fix(String s) { return Math.round(Double.parseDouble(s) * 1e7); }
    static void see(long lon, long lat) { x0 = Math.min(x0, lon); x1 = Math.max(x1, lon); y0 = Math.min(y0, lat); y1 = Math.max(y1, lat); }
    static double x(long lon) { return (lon - x0) * sx; }
    static double y(long lat) { return (lat - y0) * sy; }

    static List<String> kws(String f) {
        if (f.equals("-")) return new ArrayList<>();
        String[] a = f.split(",");
        TreeSet<String> t = new TreeSet<>(Arrays.asList(a));
        return new ArrayList<>(t);
    }

    public static void main(String[] args) throws IOException {
        List<String> lines = Files.readAllLines(Paths.get(args[0]));
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        // parse once, outside the clock (as spate-bench does)
        int n = lines.size();
        byte[] kind = new byte[n];
        Object[] ops = new Object[n];
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            String[] f = lines.get(i).split("\t");
            if (f[0].equals("sub")) { see(fix(f[2]), fix(f[3])); see(fix(f[4]), fix(f[5])); }
            else if (f[0].equals("event")) see(fix(f[2]), fix(f[3]));
        }
        sx = 9999.0 / Math.max(1, x1 - x0);
        sy = 9999.0 / Math.max(1, y1 - y0);
        for (int i = 0; i < n; i++) {
            String[] f = lines.get(i).split("\t");
            if (f[0].equals("sub")) {
                if (f.length > 7 || f[6].equals("-"))
                    throw new IllegalArgumentException("line " + (i + 1) + ": FAST takes no constraints and no keyword-less queries");
                kind[i] = 1;
                ids[i] = Integer.parseInt(f[1]);
                ops[i] = new Object[] { new double[] { x(fix(f[2])), y(fix(f[3])), x(fix(f[4])), y(fix(f[5])) }, kws(f[6]) };
            } else if (f[0].equals("unsub")) {
                kind[i] = 2;
                ids[i] = Integer.parseInt(f[1]);
            } else if (f[0].equals("event")) {
                kind[i] = 3;
                ids[i] = Integer.parseInt(f[1]);
                ops[i] = new Object[] { new double[] { x(fix(f[2])), y(fix(f[3])) }, kws(f[4]) };
            }
        }
        for (int r = 0; r < rounds; r++) {
            LFAST fast = new LFAST(new Rectangle(new Point(0.0, 0.0), new Point(10000.0, 10000.0)), 512, 9);
            HashMap<Integer, LMinimalRangeQuery> live = new HashMap<>();
            long tIns = 0, tDel = 0, tEv = 0, nIns = 0, nDel = 0, nEv = 0, matches = 0, hash = 0;
            PrintWriter out = (r == rounds - 1 && args.length > 2) ? new PrintWriter(new BufferedWriter(new FileWriter(args[2]))) : null;
            System.gc();
            long heap0 = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
            long heapAfterIns = -1;
            ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
            long cpu0 = tmx.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                if (kind[i] == 1) {
                    Object[] o = (Object[]) ops[i];
                    double[] b = (double[]) o[0];
                    @SuppressWarnings("unchecked") List<String> k = (List<String>) o[1];
                    long t = System.nanoTime();
                    LMinimalRangeQuery q = new LMinimalRangeQuery(ids[i], k, new Point(b[0], b[1]),
                            new Rectangle(new Point(b[0], b[1]), new Point(b[2], b[3])), null, 0, Long.MAX_VALUE);
                    fast.insertQuery(q);
                    live.put(ids[i], q);
                    tIns += System.nanoTime() - t;
                    nIns++;
                } else if (kind[i] == 2) {
                    long t = System.nanoTime();
                    LMinimalRangeQuery q = live.remove(ids[i]);
                    if (q != null) q.et = -1;
                    tDel += System.nanoTime() - t;
                    nDel++;
                } else if (kind[i] == 3) {
                    if (heapAfterIns < 0 && nIns > 0 && nEv == 0) {
                        System.gc();
                        heapAfterIns = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
                    }
                    Object[] o = (Object[]) ops[i];
                    double[] p = (double[]) o[0];
                    @SuppressWarnings("unchecked") List<String> k = (List<String>) o[1];
                    long t = System.nanoTime();
                    LDataObject obj = new LDataObject(ids[i], new Point(p[0], p[1]), k, 0, Long.MAX_VALUE);
                    Collection<Query> res = fast.insertObject(obj);
                    tEv += System.nanoTime() - t;
                    nEv++;
                    long[] sub = new long[res.size()];
                    int m = 0;
                    for (Query q : res)
                        if (q.et >= 0) // FAST removes expired queries lazily: a deleted one may still be returned
                            sub[m++] = q.id;
                    Arrays.sort(sub, 0, m);
                    for (int j = 0; j < m; j++) {
                        matches++;
                        hash += ((long) ids[i] * 0x9e3779b97f4a7c15L) ^ sub[j];
                        if (out != null) out.println(ids[i] + "\t" + sub[j]);
                    }
                }
            }
            // As spate-bench: the main thread's CPU time shared out by the
            // kinds' wall-time shares (time descheduled taken out; the GC
            // threads' work is not counted, which favours FAST).
            double cpu = tmx.getCurrentThreadCpuTime() - cpu0, busy = tIns + tDel + tEv;
            double cpw = busy > 0 && cpu < busy ? cpu / busy : 1;
            if (out != null) out.close();
            System.out.printf("{\"peer\":\"fast\",\"round\":%d,\"inserts\":%d,\"deletes\":%d,\"events\":%d,\"matches\":%d,\"hash\":%d,"
                    + "\"insert_us\":%.3f,\"delete_us\":%.3f,\"events_per_s\":%.0f,"
                    + "\"insert_us_cpu\":%.3f,\"delete_us_cpu\":%.3f,\"events_per_s_cpu\":%.0f,\"heap_mb_after_inserts\":%.1f}%n",
                    r, nIns, nDel, nEv, matches, hash, nIns > 0 ? tIns / 1e3 / nIns : 0, nDel > 0 ? tDel / 1e3 / nDel : 0,
                    tEv > 0 ? nEv / (tEv / 1e9) : 0, nIns > 0 ? tIns * cpw / 1e3 / nIns : 0,
                    nDel > 0 ? tDel * cpw / 1e3 / nDel : 0, tEv > 0 ? nEv / (tEv * cpw / 1e9) : 0,
                    (heapAfterIns - heap0) / 1048576.0);
        }
    }
}
