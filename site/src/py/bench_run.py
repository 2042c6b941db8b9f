# "Run on my machine" of the benchmarks page: short end-to-end timings in this browser.
# Every timed step ends with a readback of one element, so it includes all GPU work and
# one round trip; rows are printed as they finish, for the page's progress.
import json
import statistics
import time

import webarray as _xp


def _site_time(step, budget_s=0.25, max_reps=15):
    step()  # warm-up: compiles the kernels
    times = []
    t_end = time.perf_counter() + budget_s
    while len(times) < 3 or (time.perf_counter() < t_end and len(times) < max_reps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _site_bench(elementwise_sizes, matmul_sizes):
    cases = [("a * b + c", n) for n in elementwise_sizes]
    cases += [("sum", n) for n in elementwise_sizes]
    cases += [("matmul", n) for n in matmul_sizes]
    rows = []
    for i, (case, n) in enumerate(cases, 1):
        if case == "matmul":
            a = _xp.ones((n, n)) / n
            seconds = _site_time(lambda: float((a @ a)[0, 0]))
            row = {"case": case, "n": n, "seconds": seconds, "gflops": 2 * n ** 3 / seconds / 1e9}
        else:
            a, b, c = (_xp.full(n, v) for v in (1.5, 2.0, 0.25))
            if case == "sum":
                seconds = _site_time(lambda: float(_xp.sum(a)))
                nbytes = 4 * n
            else:
                seconds = _site_time(lambda: float((a * b + c)[-1]))
                nbytes = 16 * n
            row = {"case": case, "n": n, "seconds": seconds, "gbps": nbytes / seconds / 1e9}
        rows.append(row)
        print(f"[{i}/{len(cases)}] {case:9s} n={n:<8d} {seconds * 1e3:9.2f} ms", flush=True)
    return json.dumps(rows)
