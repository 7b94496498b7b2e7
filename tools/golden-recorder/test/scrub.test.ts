import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scrubExport, scrubString } from "../src/scrub.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("scrubString", () => {
  it("replaces this checkout's path in stack frames and file URLs", () => {
    const frame = `at run (${repoRoot}/tools/golden-recorder/src/x.ts:3:9)`;
    expect(scrubString(frame)).toBe("at run (<repo>/tools/golden-recorder/src/x.ts:3:9)");
    expect(scrubString(`file://${repoRoot}/a.ts`)).toBe("file://<repo>/a.ts");
  });

  it("reduces other absolute filesystem paths to their last segment", () => {
    expect(scrubString("at f (/home/alice/store/pkg/index.js:1:1)")).toBe("at f (<path>/index.js:1:1)");
    expect(scrubString("/srv/cache/x/y.mjs")).toBe("<path>/y.mjs");
    expect(scrubString(`${os.homedir()}/notes.txt`)).toBe("<home>/notes.txt");
  });

  it("leaves URL paths and ordinary text alone", () => {
    expect(scrubString("POST /v1/traces")).toBe("POST /v1/traces");
    expect(scrubString("ISO weeks start on Monday.")).toBe("ISO weeks start on Monday.");
  });
});

describe("scrubExport", () => {
  it("replaces machine attributes and scrubs nested strings", () => {
    const input = {
      resource: {
        attributes: [
          { key: "host.name", value: { stringValue: "build-box-7" } },
          { key: "process.pid", value: { intValue: 4242 } },
          { key: "service.name", value: { stringValue: "svc" } },
        ],
      },
      events: [{ attributes: [{ key: "exception.stacktrace", value: { stringValue: `at g (${repoRoot}/src/g.ts:1:1)` } }] }],
    };
    expect(scrubExport(input)).toEqual({
      resource: {
        attributes: [
          { key: "host.name", value: { stringValue: "<host>" } },
          { key: "process.pid", value: { intValue: 0 } },
          { key: "service.name", value: { stringValue: "svc" } },
        ],
      },
      events: [{ attributes: [{ key: "exception.stacktrace", value: { stringValue: "at g (<repo>/src/g.ts:1:1)" } }] }],
    });
  });
});
