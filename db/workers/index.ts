// Every background worker of the server, in the order they start (and stop).
import { retention } from "./retention";
import { summariser } from "./summariser";
import { webhookDelivery } from "./webhook-delivery";
import type { WorkerDefinition } from "./worker";

export const WORKERS: readonly WorkerDefinition[] = [retention, summariser, webhookDelivery];
