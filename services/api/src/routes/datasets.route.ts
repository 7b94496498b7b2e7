/**
 * /datasets: versioned task sets (docs/experiments.md §1). A change to the
 * items writes a new version; older versions stay readable. Items come as
 * JSON or as JSON Lines (`jsonl`): every line is checked before anything is
 * written, and the first bad line is named.
 */
import { ConfigId, Dataset, DatasetBody, DatasetItemBody, DatasetItemList, DatasetItemsBody, DatasetItemsQuery, DatasetList, PageQuery } from "@crux/contracts";
import { addDatasetItems, createDataset, deleteDataset, getDataset, listDatasetItems, listDatasets, type Database, type StoredDataset } from "@crux/db";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ApiError, ErrorBody } from "../errors.ts";

const IdParams = z.object({ id: ConfigId });
const errors = { 400: ErrorBody, 401: ErrorBody };

function datasetView(d: StoredDataset): z.infer<typeof Dataset> {
  return { ...d, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString() };
}

/** The items of a JSON Lines text, each checked as a DatasetItemBody; the first bad line is a 400 naming it. */
function parseJsonLines(text: string): DatasetItemBody[] {
  const items: DatasetItemBody[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ApiError("invalid_request", `jsonl line ${i + 1}: not valid JSON`);
    }
    const parsed = DatasetItemBody.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ApiError("invalid_request", `jsonl line ${i + 1}: ${issue.path.join(".") || "item"}: ${issue.message}`);
    }
    items.push(parsed.data);
  }
  return items;
}

function itemsOf(body: DatasetItemsBody): DatasetItemBody[] {
  const items = [...(body.items ?? []), ...(body.jsonl === undefined ? [] : parseJsonLines(body.jsonl))];
  const seen = new Set<string>();
  for (const x of items) {
    if (seen.has(x.taskId)) throw new ApiError("invalid_request", `duplicate taskId ${x.taskId}`);
    seen.add(x.taskId);
  }
  if (items.length === 0 && !body.replace) throw new ApiError("invalid_request", "set items or jsonl (or replace with an empty set)");
  if (items.length > 10_000) throw new ApiError("invalid_request", `${items.length} items; at most 10000 per version`);
  return items;
}

export function datasetsRoutes(deps: { database: Database }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const db = deps.database;
    const notFound = (id: string) => new ApiError("not_found", `dataset ${id} not found`);

    r.get(
      "/datasets",
      { schema: { summary: "List datasets", tags: ["experiments"], querystring: PageQuery, response: { 200: DatasetList, ...errors } } },
      async (req) => {
        const page = await listDatasets(db, req.projectId, req.query);
        return { items: page.items.map(datasetView), nextCursor: page.nextCursor };
      },
    );
    r.post(
      "/datasets",
      {
        schema: {
          summary: "Create a dataset (version 1) with its first items",
          tags: ["experiments"],
          body: DatasetBody,
          response: { 201: Dataset, ...errors, 409: ErrorBody },
        },
      },
      async (req, reply) => reply.code(201).send(datasetView(await createDataset(db, req.projectId, req.body))),
    );
    r.get(
      "/datasets/:id",
      { schema: { summary: "One dataset", tags: ["experiments"], params: IdParams, response: { 200: Dataset, ...errors, 404: ErrorBody } } },
      async (req) => {
        const d = await getDataset(db, req.projectId, req.params.id);
        if (!d) throw notFound(req.params.id);
        return datasetView(d);
      },
    );
    r.post(
      "/datasets/:id/items",
      {
        schema: {
          summary: "Add items (JSON or JSON Lines) as a new version; an item with an existing task id replaces it, `replace` starts from empty",
          tags: ["experiments"],
          params: IdParams,
          body: DatasetItemsBody,
          response: { 200: Dataset, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        const d = await addDatasetItems(db, req.projectId, req.params.id, itemsOf(req.body), req.body.replace);
        if (!d) throw notFound(req.params.id);
        return datasetView(d);
      },
    );
    r.get(
      "/datasets/:id/items",
      {
        schema: {
          summary: "Items of a version (default the current one), by task id",
          tags: ["experiments"],
          params: IdParams,
          querystring: DatasetItemsQuery,
          response: { 200: DatasetItemList, ...errors, 404: ErrorBody },
        },
      },
      async (req) => {
        const page = await listDatasetItems(db, req.projectId, req.params.id, req.query);
        if (!page)
          throw new ApiError("not_found", `dataset ${req.params.id}${req.query.version === undefined ? "" : ` version ${req.query.version}`} not found`);
        return page;
      },
    );
    r.delete(
      "/datasets/:id",
      {
        schema: {
          summary: "Delete a dataset with every version (experiments keep their runs)",
          tags: ["experiments"],
          params: IdParams,
          response: { 204: z.null(), ...errors, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        if (!(await deleteDataset(db, req.projectId, req.params.id))) throw notFound(req.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
