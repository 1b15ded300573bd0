#!/usr/bin/env python3
"""An OTLP/HTTP trace receiver for the tests: it takes what an OpenTelemetry
exporter posts to /v1/traces (protobuf, plain or gzip), decodes it with the
official opentelemetry-proto messages, and appends one JSON object a span to
a file, so a test can read which spans arrived, with their parents and
attributes.

    otlp_receiver.py SPANS_FILE    listens on 127.0.0.1, on a port of its
                                   own, and prints "listening PORT"
"""
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

MAX_BODY = 16 << 20


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def spans(request):
    for resource_spans in request.resource_spans:
        resource = {kv.key: value(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": span.kind,
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "status": span.status.code,
                    "attributes": {kv.key: value(kv.value) for kv in span.attributes},
                    "resource": resource,
                }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        if self.path != "/v1/traces" or not 0 <= length <= MAX_BODY:
            self.send_error(404 if self.path != "/v1/traces" else 413)
            return
        body = self.rfile.read(length)
        if self.headers.get("Content-Encoding", "") == "gzip":
            body = gzip.decompress(body)
        if "protobuf" not in self.headers.get("Content-Type", ""):
            self.send_error(415, "this receiver takes application/x-protobuf")
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        with self.server.lock, open(self.server.spans_file, "a", encoding="utf-8") as out:
            for span in spans(request):
                out.write(json.dumps(span) + "\n")
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.spans_file = sys.argv[1]
    server.lock = threading.Lock()
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
