/** The fake tool's workload section: the fields every tool shares, plus one of its own. */
import { z } from 'zod';
import {
  clientsField,
  commonWorkloadFields,
  descriptionField,
  nameField,
  refineClients,
} from '../../../../src/drivers/common/workload-fields.js';

export const fakeWorkloadSchema = z
  .strictObject({
    name: nameField,
    description: descriptionField,
    tool: z.literal('fake').describe('The client that drives the workload.'),
    tps: z.number().positive().default(1000).describe('The throughput every run reports.'),
    clients: clientsField('client count', 'One cell per entry.'),
    ...commonWorkloadFields,
  })
  .superRefine((w, ctx) => refineClients(w, ctx));

export type FakeWorkload = z.output<typeof fakeWorkloadSchema>;
