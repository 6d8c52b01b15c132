/** The inbox's markup: sign-in, the queue (live), and one item with its decision form. Filled by the script. */
export function inboxHtml(style: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Inbox · Handoff</title><style>${style}</style></head>
<body>
<main>
<h1>Inbox</h1>
<section id="sign-in-section" aria-labelledby="sign-in-heading">
<h2 id="sign-in-heading">Sign in</h2>
<p><button id="sign-in" type="button" aria-describedby="sign-in-error">Sign in with a passkey</button></p>
<p id="sign-in-error" class="error" role="alert"></p>
<p>No passkey yet? Open the enrollment link your administrator sent you.</p>
</section>
<section id="queue-section" aria-labelledby="queue-heading" hidden>
<p><span id="who"></span> <button id="sign-out" type="button" class="secondary">Sign out</button></p>
<h2 id="queue-heading" tabindex="-1">My queue</h2>
<p id="live" class="hint" role="status" aria-live="polite"></p>
<p id="queue-error" class="error" role="alert"></p>
<p id="queue-empty" hidden>Nothing is waiting for you.</p>
<ul id="queue" aria-label="Items waiting for your decision"></ul>
<p id="answer-status" role="status" aria-live="polite"></p>
</section>
<section id="item-section" aria-labelledby="item-heading" hidden>
<h2 id="item-heading" tabindex="-1">Item</h2>
<p id="item-gone" class="error" role="alert"></p>
<dl id="details"></dl>
<h3>Escalation chain</h3>
<ol id="chain" class="chain"></ol>
<p id="chain-next" class="hint"></p>
<h3>Provenance so far</h3>
<ol id="provenance" class="provenance"></ol>
<form id="decision-form" novalidate>
<fieldset id="params">
<legend>Parameters (change them to approve with changes)</legend>
<div id="param-fields"></div>
</fieldset>
<label for="comment">Comment</label>
<textarea id="comment" aria-describedby="comment-error"></textarea>
<p id="comment-error" class="error"></p>
<p id="answer-error" class="error" role="alert"></p>
<div class="actions">
<button id="approve" type="button">Approve</button>
<button id="approve-modified" type="button" class="secondary">Approve with changes</button>
<button id="reject" type="button" class="danger">Reject</button>
</div>
<p class="hint">Your passkey signs exactly this decision (the item, the decision, the parameters and your comment).</p>
</form>
</section>
</main>
<script>${script}</script>
</body>
</html>
`;
}
