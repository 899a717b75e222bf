"""A python3-bt2 filter that forwards its upstream's messages and cannot
seek: what filter.vm.correlate sees behind src.ctf.lttng-live. Import it
after bt2 (the tests that use it skip without python3-bt2)."""

import bt2


class _ForwardIterator(bt2._UserMessageIterator):
    """Its upstream's messages, as they come; no seeking at all."""

    def __init__(self, config, port):
        self._upstream = self._create_message_iterator(
            self._component._input_ports[port.user_data])

    def __next__(self):
        return next(self._upstream)


class NoSeekForwarder(bt2._UserFilterComponent, message_iterator_class=_ForwardIterator):
    def __init__(self, config, params, obj):
        self._add_input_port("in")
        self._add_output_port("out", "in")
