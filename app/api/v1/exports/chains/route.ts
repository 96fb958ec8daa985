import { iterateChains } from "@/db/queries/chains";
import { CHAIN_CSV_HEADER, chainCsvRow } from "@/lib/chains/export";
import { parseSearchParams } from "@/lib/http/list";
import { serve } from "@/app/_access/api-route";
import { CHAIN_ROUTES } from "@/lib/routes/chains";
import { errorFields, logger } from "@/lib/observability/log";
import { chainExportQuerySchema, defaultOrder } from "@/lib/schemas/chains";

const CONTENT_TYPE = { csv: "text/csv; charset=utf-8", json: "application/json; charset=utf-8" } as const;

/**
 * Every chain matching the chains-list filters, in list order, as CSV or as a JSON array of
 * the objects `GET /api/v1/chains` lists. Streamed page by page: memory stays flat whatever
 * the number of chains, and the download starts at once.
 */
export const { GET, POST, PUT, PATCH, DELETE } = serve(CHAIN_ROUTES.export, {
  GET: async (request) => {
    const { format, ...filter } = parseSearchParams(request.url, chainExportQuerySchema, ["status"]);
    const pages = iterateChains({ ...filter, order: filter.order ?? defaultOrder(filter.sort) });
    const encoder = new TextEncoder();
    let started = false;
    let wroteItem = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          if (!started) {
            started = true;
            controller.enqueue(encoder.encode(format === "csv" ? CHAIN_CSV_HEADER : "["));
            return;
          }
          const { value, done } = await pages.next();
          if (done) {
            if (format === "json") controller.enqueue(encoder.encode("]\n"));
            controller.close();
            return;
          }
          if (format === "csv") {
            controller.enqueue(encoder.encode(value.map(chainCsvRow).join("")));
          } else {
            controller.enqueue(
              encoder.encode(`${wroteItem ? "," : ""}\n${value.map((chain) => JSON.stringify(chain)).join(",\n")}`),
            );
            wroteItem = true;
          }
        } catch (error) {
          // Headers are gone: the best left is to cut the download short, visibly, and log why.
          logger.error({ err: errorFields(error) }, "chains export failed mid-stream");
          controller.error(error);
        }
      },
      async cancel() {
        await pages.return(undefined);
      },
    });
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
    return new Response(body, {
      headers: {
        "content-type": CONTENT_TYPE[format],
        "content-disposition": `attachment; filename="floorline-chains-${stamp}.${format}"`,
        "cache-control": "no-store",
      },
    });
  },
});
