// Sinks (sinks.html, /app/sinks?catalog=<id>[&sink=<id>]): a catalog's ingest
// sinks with their table, state, last roll and freshness; making one (its send
// key shown once, with a curl that sends a row); and one sink in detail: its
// counts, recent rejects with reasons and example rows, sending, the device
// URL, a dry run of a batch, deleting it. Making, deleting and device tokens
// need write on the catalog; reading and the dry run need read, so a read
// holder is offered only those (the API refuses the rest anyway).
//
// This is the page entry: it picks the view. The list and making a sink are
// sink-list.js; one sink is sink-detail.js, with its device URL in
// sink-device.js; both word a sink's figures with sink-words.js and offer the
// rows to send from sink-send.js.
import { catalogInView, consolePage, params } from '/app/console.js';
import { drawSink } from '/app/sink-detail.js';
import { drawList } from '/app/sink-list.js';

await consolePage({
  area: 'home',
  title: 'Sinks',
  render: async (ctx) => {
    const view = await catalogInView(ctx);
    const sinkId = params.get('sink');
    const nodes = await (sinkId ? drawSink(ctx, view, sinkId) : drawList(ctx, view));
    // Absent parts are skipped: `append` would write `null` as text.
    ctx.body.append(...nodes.flat().filter(Boolean));
  },
});
