// The dashboard's stylesheet and icon, served from /dashboard/assets/ (the CSP allows no
// inline styles or scripts, and the dashboard needs no script at all).
import { withSecurityHeaders } from "./respond.ts";

const STYLESHEET = `
:root { font-family: system-ui, sans-serif; color: #1d232b; background: #f6f7f9; }
body { margin: 0; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .75rem 1.5rem; background: #1d2a3a; color: #fff; }
header nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; flex: 1; }
header nav a { white-space: nowrap; }
header a { color: #cfe0ff; text-decoration: none; }
header a:hover { text-decoration: underline; }
.signout { display: flex; gap: .5rem; align-items: center; margin: 0; }
main { padding: 1rem 1.5rem 3rem; max-width: 80rem; }
h1 { font-size: 1.5rem; }
h2 { font-size: 1.1rem; }
table { border-collapse: collapse; width: 100%; background: #fff; margin: 1rem 0; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #e2e5ea; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
tr.revoked td { color: #8a929c; }
tr.state-dead td { background: #fff3f2; }
td form, td.actions form { display: inline-block; margin: 0 .25rem .25rem 0; }
form.inline { display: inline-block; margin: 0 .25rem .25rem 0; }
.correction { margin: .25rem 0; }
pre.preview { white-space: pre-wrap; word-break: break-word; max-width: 32rem; max-height: 20rem; overflow: auto; margin: 0; font: inherit; }
mark.hidden-char { background: #ffe08a; color: #5c3b00; font-size: .75em; padding: 0 .15em; border-radius: 2px; }
.card { background: #fff; border: 1px solid #e2e5ea; border-radius: 6px; padding: 1rem; margin: 1rem 0; max-width: 40rem; }
.card.narrow { max-width: 22rem; }
.card label { display: block; margin: .5rem 0; }
.card label.check { display: inline-block; margin-right: 1rem; }
.card textarea { display: block; width: 100%; box-sizing: border-box; font: .85rem ui-monospace, monospace; margin-top: .2rem; }
.card input:not([type=checkbox]), .card select { display: block; width: 100%; box-sizing: border-box; padding: .35rem; margin-top: .2rem; }
.secret { border-color: #d9a400; background: #fffbea; }
.secret-value { font-size: 1.05rem; word-break: break-all; user-select: all; }
.notice { padding: .6rem .8rem; border-radius: 4px; }
.notice.ok { background: #e8f6ec; border: 1px solid #9fd3ad; }
.notice.error { background: #fdecea; border: 1px solid #f0a8a0; }
.hint { color: #4f5965; max-width: 60rem; }
.state.on { color: #17803d; font-weight: 600; }
.state.off { color: #8a929c; }
.state.paused { color: #b3261e; font-weight: 600; }
form.window input { width: 5rem; display: inline-block; }
button { padding: .35rem .8rem; border: 1px solid #2b5fb4; background: #2f6bd0; color: #fff; border-radius: 4px; cursor: pointer; }
button.danger { background: #fff; color: #b3261e; border-color: #b3261e; }
dl.card { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
dl.card dd { margin: 0; }
dl.card.wide { max-width: 60rem; }
dl.card dd, td { overflow-wrap: anywhere; }
a.pending { display: block; padding: .5rem 1.5rem; background: #fff4cc; color: #5c3b00; font-weight: 600; text-decoration: none; border-bottom: 1px solid #e8cf70; }
a.pending:hover { text-decoration: underline; }
.badge { display: inline-block; padding: .05rem .45rem; border-radius: 999px; font-size: .8rem; background: #eef1f5; color: #3a4450; white-space: nowrap; }
.badge.ok { background: #e3f4e8; color: #17612f; }
.badge.warn { background: #fff1cc; color: #6b4a00; }
.badge.bad { background: #fde3e0; color: #a1231b; }
.badge.sent { background: #e5edfb; color: #1f4f9c; }
div.labels { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .5rem 0; }
div.labels form.inline { display: inline-flex; margin: 0; }
div.label-item { display: inline-flex; align-items: center; }
button.link { background: none; border: none; padding: 0 .2rem; color: inherit; cursor: pointer; text-decoration: underline; font: inherit; }
.badge.label { background: #efe8fb; color: #4b2a85; }
ul.attachments { margin: .4rem 0 0; padding-left: 1.1rem; }
.scroll { overflow-x: auto; }
table.compact { width: auto; min-width: 20rem; }
table.report tr.nonzero td { font-weight: 600; background: #fff8e1; }
form.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; margin: .5rem 0; }
form.filters select, form.filters input { display: block; padding: .3rem; max-width: 100%; }
.paging { display: flex; gap: 1.5rem; }
form.filters label.grow { flex: 1 1 14rem; }
form.filters label.grow input { width: 100%; box-sizing: border-box; }
table.mail .snippet { font-size: .85rem; color: #4f5965; margin-top: .15rem; font-weight: normal; }
mark.hit { background: #fff1a8; color: inherit; padding: 0 .1em; }
pre.body, pre.json, pre.record { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid #e2e5ea; border-radius: 6px; padding: .75rem; max-height: 30rem; overflow: auto; font-size: .9rem; }
pre.record { user-select: all; max-height: none; margin: .25rem 0; font-size: .85rem; }
.record-card { max-width: 60rem; }
.record-card h3 { margin: 0 0 .25rem; }
.record-block label { display: block; margin: .4rem 0; font-size: .85rem; color: #4f5965; }
iframe.original { width: 100%; height: 32rem; border: 1px solid #c9ced6; border-radius: 6px; background: #fff; }
ol.thread li.current { font-weight: 600; }
section { margin-bottom: 1.5rem; }
p.summary { display: flex; flex-wrap: wrap; gap: .4rem .9rem; align-items: center; background: #fff; border: 1px solid #e2e5ea; border-radius: 6px; padding: .6rem .8rem; max-width: 60rem; }
p.summary a { color: inherit; text-decoration: none; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(30rem, 1fr)); gap: 0 1rem; }
figure.chart { background: #fff; border: 1px solid #e2e5ea; border-radius: 6px; padding: .75rem; margin: 1rem 0; }
figure.chart > svg { width: 100%; height: auto; display: block; }
figure.chart > svg.meter-svg { height: 1rem; max-width: 30rem; }
figure.chart figcaption { font-weight: 600; margin-bottom: .4rem; }
.legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .85rem; margin: .4rem 0; }
.legend i { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .3rem; vertical-align: -.1rem; }
.meter { height: 1rem; background: #e2e5ea; border-radius: 4px; overflow: hidden; max-width: 30rem; }
.meter span { display: block; height: 100%; background: #2f6bd0; }
.reviews { display: grid; gap: 1rem; margin: 1rem 0; }
article.review { background: #fff; border: 1px solid #e2e5ea; border-radius: 6px; padding: .75rem 1rem; max-width: 60rem; }
dl.review-facts, dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 .6rem; }
dl.review-facts dd, dl.facts dd { margin: 0; overflow-wrap: anywhere; }
dl.review-facts dt, dl.facts dt { color: #4f5965; }
article.review pre.preview { max-width: none; background: #f6f7f9; border: 1px solid #e2e5ea; border-radius: 4px; padding: .5rem; }
article.review .actions, form.decide { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .6rem; }
article.review .actions form { margin: 0; }
article.review .actions button, form.decide button { padding: .55rem 1.1rem; font-size: 1rem; }
pre.message-text { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid #e2e5ea; border-radius: 6px; padding: .75rem; font: inherit; max-width: 60rem; }
.notice.risk { font-weight: 600; }
@media (max-width: 700px) {
  dl.review-facts, dl.facts { grid-template-columns: 1fr; gap: 0; }
  dl.review-facts dt, dl.facts dt { font-size: .8rem; margin-top: .3rem; }
  article.review { padding: .6rem .7rem; }
  article.review .actions, form.decide { flex-direction: column; }
  article.review .actions form, article.review .actions button, form.decide button { width: 100%; }
  header { padding: .5rem .75rem; gap: .4rem; }
  header nav { flex-wrap: wrap; gap: .35rem .8rem; flex-basis: 100%; order: 3; }
  main { padding: .5rem .75rem 2rem; }
  a.pending { padding: .5rem .75rem; }
  h1 { font-size: 1.2rem; overflow-wrap: anywhere; }
  table { font-size: .85rem; }
  th, td { padding: .3rem .35rem; }
  dl.card { grid-template-columns: 1fr; gap: 0; }
  dl.card dt { font-weight: 600; margin-top: .4rem; }
  .card { max-width: none; }
  iframe.original { height: 24rem; }
  .charts { grid-template-columns: 1fr; }
  /* Any other wide table scrolls inside itself instead of widening the page. */
  main table:not(.stack):not(.mail) { display: block; overflow-x: auto; }
  /* Wide tables become one card per row, each cell labelled by its data-label. */
  table.stack thead { display: none; }
  table.stack tr { display: block; padding: .4rem .35rem; border-bottom: 1px solid #e2e5ea; }
  table.stack td { display: block; border: 0; padding: .1rem 0; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; color: #4f5965; font-size: .8rem; }
  /* The mail list as stacked cards: subject, then sender and verdict, then the time. */
  table.mail thead { display: none; }
  table.mail tr { display: grid; grid-template-columns: 1fr auto; gap: .1rem .5rem; padding: .45rem .35rem; border-bottom: 1px solid #e2e5ea; }
  table.mail td { border: 0; padding: 0; }
  table.mail td:nth-child(1) { grid-column: 1; grid-row: 3; font-size: .75rem; color: #4f5965; }
  table.mail td:nth-child(2) { display: none; }
  table.mail td:nth-child(3) { grid-column: 1; grid-row: 2; font-size: .8rem; }
  table.mail td:nth-child(4) { grid-column: 1 / span 2; grid-row: 1; font-weight: 600; }
  table.mail td:nth-child(5) { grid-column: 2; grid-row: 2 / span 2; align-self: center; }
}
`;

// An envelope, so browsers asking for an icon get one instead of a 404 in the console.
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="1" y="3" width="14" height="10" rx="1" fill="#2f6bd0"/><path d="M1 4l7 5 7-5" stroke="#fff" fill="none"/></svg>`;

export function icon(): Response {
  return new Response(ICON, {
    headers: withSecurityHeaders({ "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" }),
  });
}

export function stylesheet(): Response {
  return new Response(STYLESHEET, {
    headers: withSecurityHeaders({ "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" }),
  });
}
