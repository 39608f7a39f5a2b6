// order-audit (Node.js): every change of an order's status becomes an item of the audit table.
//
//   AUDIT_TABLE   the table to write to (key pk: S); its items are
//                 {pk: "<order pk>#<sequence number>", order, from, to, at}
//
// For a stream with NEW_AND_OLD_IMAGES. MODIFY records whose status did not change, and INSERT/REMOVE records,
// are skipped. It reports partial batch failures (FunctionResponseTypes: ReportBatchItemFailures): a record
// that could not be written is retried from there on. The AWS SDK for JavaScript v3 is the one Lambda's
// Node.js runtime provides; it deploys to AWS unchanged.
import { DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";

const dynamodb = new DynamoDBClient({});

export const handler = async (event) => {
  const table = process.env.AUDIT_TABLE;
  const batchItemFailures = [];
  for (const record of event.Records ?? []) {
    const change = record.dynamodb ?? {};
    const from = change.OldImage?.status?.S;
    const to = change.NewImage?.status?.S;
    if (record.eventName !== "MODIFY" || from === to) continue;
    const order = change.Keys.pk.S;
    try {
      await dynamodb.send(new PutItemCommand({
        TableName: table,
        Item: {
          pk: { S: `${order}#${change.SequenceNumber}` }, order: { S: order },
          from: { S: from ?? "" }, to: { S: to ?? "" }, at: { N: String(change.ApproximateCreationDateTime) },
        },
      }));
    } catch (error) {
      console.error(`could not audit ${order}: ${error.message}`);
      batchItemFailures.push({ itemIdentifier: change.SequenceNumber });
      break;
    }
  }
  return { batchItemFailures };
};
