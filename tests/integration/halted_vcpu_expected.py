"""Expected intervals of the halted-vcpu stub scenario, read off the stub by
hand (t = ns after the stub clock offset): shared by the tests that run it."""

HALTED_THREAD = [
    ("running", 12000, 20200, "0", ""), ("hypervisor", 20200, 22100, "0", "18"),
    ("running", 22100, 30000, "0", ""), ("blocked", 30000, 5035000, "", ""),
    ("runnable", 5035000, 5036000, "", ""), ("running", 5036000, 5040200, "0", ""),
    ("hypervisor", 5040200, 5042100, "0", "18"), ("running", 5042100, 5050000, "0", ""),
    ("blocked", 5050000, 6055000, "", ""), ("runnable", 6055000, 6056000, "", ""),
    ("running", 6056000, 6060200, "0", ""), ("hypervisor", 6060200, 6062100, "0", "18"),
    ("running", 6062100, 6070000, "0", ""),
]

# The vCPU halts (HLT, 12), its thread blocks on the host until a wakeup
# switches it back in, still in the HLT exit.
HALTED_VCPU = [
    ("hypervisor", 10000, 11000, "0", ""), ("guest", 11000, 20200, "0", ""),
    ("hypervisor", 20200, 22100, "0", "18"), ("guest", 22100, 31000, "0", ""),
    ("hypervisor", 31000, 32000, "0", "12"), ("blocked", 32000, 5033000, "", ""),
    ("hypervisor", 5033000, 5034000, "0", "12"), ("guest", 5034000, 5040200, "0", ""),
    ("hypervisor", 5040200, 5042100, "0", "18"), ("guest", 5042100, 5051000, "0", ""),
    ("hypervisor", 5051000, 5052000, "0", "12"), ("blocked", 5052000, 6053000, "", ""),
    ("hypervisor", 6053000, 6054000, "0", "12"), ("guest", 6054000, 6060200, "0", ""),
    ("hypervisor", 6060200, 6062100, "0", "18"), ("guest", 6062100, 6070000, "0", ""),
]
