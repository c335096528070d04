# runner.py - runs test modules of Numba's CUDA test suite (numba.cuda.tests) in this process
# and prints one line per test: "RESULT <outcome> <test id> <message>", outcome one of
# pass, fail, error, skip, xfail, xpass. Run under ptxemu by tests/numba/survey.sh and
# tests/run_numba_tests.sh; the last line is "DONE <module>" when the module ran to the end.
import sys
import unittest


def host_available_bytes():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


# Tests that need more of the machine than it has - not more of ptxemu - are skipped when it
# lacks it, with the reason (ptxemu's device memory is the host's RAM; running such a test
# on a smaller machine brings the kernel's OOM killer onto whatever runs beside it).
NEEDS_HOST = {
    "numba.cuda.tests.cudadrv.test_managed_alloc.TestManagedAlloc."
    "test_managed_alloc_driver_undersubscribe": (
        lambda: host_available_bytes() >= 48 << 30,
        "host: the test fills half of the GPU's 80 GB; ptxemu keeps device memory in host RAM "
        "and this host has less than 48 GB available"),
}


def skip_what_the_host_cannot(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            skip_what_the_host_cannot(t)
            continue
        need = NEEDS_HOST.get(t.id())
        if need and not need[0]():
            reason = need[1]
            setattr(t, t._testMethodName, lambda reason=reason, t=t: t.skipTest(reason))


def first_line(text):
    lines = [l.strip() for l in str(text).strip().splitlines() if l.strip()]
    # the exception's own line says most: the last of a traceback
    line = lines[-1] if lines else ""
    return line.replace("\t", " ")[:300]


class LineResult(unittest.TextTestResult):
    def _say(self, outcome, test, msg=""):
        sys.stdout.write("RESULT %s %s %s\n" % (outcome, test.id(), first_line(msg)))
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._say("pass", test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._say("fail", test, self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._say("error", test, self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._say("skip", test, reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._say("xfail", test)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._say("xpass", test)


def main(names):
    for name in names:
        try:
            suite = unittest.defaultTestLoader.loadTestsFromName(name)
        except Exception as e:
            sys.stdout.write("RESULT error %s.load %s\n" % (name, first_line(e)))
            continue
        skip_what_the_host_cannot(suite)
        runner = unittest.TextTestRunner(stream=sys.stderr, resultclass=LineResult, verbosity=0)
        runner.run(suite)
        sys.stdout.write("DONE %s\n" % name)
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
