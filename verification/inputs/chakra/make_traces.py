#!/usr/bin/env python3
"""Writes the small Chakra execution traces the tests replay (verification/inputs/chakra/*/trace.<rank>.et).

The protobuf wire format is encoded by hand (varints and length-delimited fields, the field numbers of
tb/chakra/et_def.proto), so this needs no protobuf module. Each file: the global metadata, then the
nodes, each message preceded by its length as a varint, as Chakra's tools write them.

  python3 verification/inputs/chakra/make_traces.py     # rewrites the directories next to this script
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
# NodeType and CollectiveCommType values of the schema.
METADATA, MEM_LOAD, COMP, SEND, RECV, COLL = 1, 2, 4, 5, 6, 7
ALL_REDUCE, BARRIER = 0, 9


def varint(n):
    n &= (1 << 64) - 1  # negative int64 values: ten bytes of two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def length_delimited(number, data):
    return field(number, 2, varint(len(data)) + data)


def attr_int(name, value):
    # AttributeProto: name = 1, int64_val = 9 (comm_type, comm_size); comm_src, comm_dst, comm_tag as int32_val = 7.
    number = 9 if name in ("comm_type", "comm_size") else 7
    return length_delimited(1, name.encode()) + field(number, 0, varint(value))


def node(node_id, name, node_type, deps=(), duration_us=0, **attrs):
    data = field(1, 0, varint(node_id)) + length_delimited(2, name.encode()) + field(3, 0, varint(node_type))
    if deps:
        data += length_delimited(5, b"".join(varint(d) for d in deps))  # data_deps, packed
    if duration_us:
        data += field(7, 0, varint(duration_us))
    for key, value in attrs.items():
        data += length_delimited(10, attr_int(key, value))
    return data


def write(directory, rank, nodes):
    os.makedirs(os.path.join(HERE, directory), exist_ok=True)
    metadata = length_delimited(1, b"0.0.4")  # GlobalMetadata.version
    with open(os.path.join(HERE, directory, f"trace.{rank}.et"), "wb") as f:
        for message in [metadata] + nodes:
            f.write(varint(len(message)) + message)


def basic():
    """4 ranks: compute 10 us, all-reduce of 1 MiB, compute 5 us; then rank 0 sends 64 KiB to rank 1, which
    computes 7 us on it; rank 2 has a memory load and rank 3 a metadata node (not modelled); a barrier ends."""
    for rank in range(4):
        nodes = [node(1, "forward", COMP, duration_us=10),
                 node(2, "allreduce_grads", COLL, [1], comm_type=ALL_REDUCE, comm_size=1048576),
                 node(3, "optimizer", COMP, [2], duration_us=5)]
        last = 3
        if rank == 0:
            nodes.append(node(4, "send_activations", SEND, [3], comm_dst=1, comm_size=65536, comm_tag=7))
            last = 4
        elif rank == 1:
            nodes.append(node(4, "recv_activations", RECV, [3], comm_src=0, comm_size=65536, comm_tag=7))
            nodes.append(node(5, "next_layer", COMP, [4], duration_us=7))
            last = 5
        elif rank == 2:
            nodes.append(node(4, "load_weights", MEM_LOAD, [3]))
            last = 4
        else:
            nodes.append(node(4, "metadata", METADATA))
        nodes.append(node(9, "barrier", COLL, [last], comm_type=BARRIER, comm_size=0))
        write("basic", rank, nodes)


def bad():
    # A node that depends on a node the trace does not have.
    write("bad_dep", 0, [node(1, "a", COMP, duration_us=1), node(2, "b", COMP, [5], duration_us=1)])
    write("bad_dep", 1, [node(1, "a", COMP, duration_us=1)])
    # A receive that no rank sends.
    write("unmatched_recv", 0, [node(1, "wait", RECV, comm_src=1, comm_size=4096, comm_tag=3)])
    write("unmatched_recv", 1, [node(1, "compute", COMP, duration_us=1)])


if __name__ == "__main__":
    basic()
    bad()
