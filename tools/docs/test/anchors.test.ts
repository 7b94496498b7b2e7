/** The link checker's reading of Markdown, on cases whose answer is known. */
import { describe, expect, it } from "vitest";
import { anchors, codeBlocks, linkTargets, slug } from "./markdown.ts";

describe("markdown reading", () => {
  it("slugs headings as GitHub does", () => {
    expect(slug("6. Settling and scoring a trace: the stage pipeline")).toBe("6-settling-and-scoring-a-trace-the-stage-pipeline");
    expect(slug("4.3 Content")).toBe("43-content");
    expect(slug("Run tags: what the run was for and how it ended")).toBe("run-tags-what-the-run-was-for-and-how-it-ended");
  });

  it("finds headings outside code only, numbering repeats, with inline code kept as text", () => {
    const md = "# Title\n\n```sh\n# not a heading\n```\n\n## `GET /traces`\n\n## Notes\n\n## Notes\n";
    expect([...anchors(md)]).toEqual(["title", "get-traces", "notes", "notes-1"]);
  });

  it("takes links from prose, not from code", () => {
    const md = "See [api](docs/api.md#errors) and `[x](nowhere.md)`.\n\n```md\n[y](nowhere.md)\n```\n";
    expect(linkTargets(md)).toEqual(["docs/api.md#errors"]);
  });

  it("splits fenced blocks with their language", () => {
    expect(codeBlocks("a\n```sh\ncurl x\n```\nb\n```json\n{}\n```\n")).toEqual([
      { lang: "sh", text: "curl x\n", line: 2 },
      { lang: "json", text: "{}\n", line: 6 },
    ]);
  });
});
