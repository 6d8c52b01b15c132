/** The inbox's one stylesheet: readable on a 390 px phone, AA contrast, a visible focus ring. */
export const INBOX_STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; overflow-wrap: anywhere; color: #1a1a1a; background: #fff; margin: 0 auto; max-width: 48rem; padding: 1rem; }
button, select {
  font: inherit; min-height: 2.75rem; padding: 0.5rem 1rem; border: 2px solid #1f3a8a; border-radius: 0.375rem;
  background: #1f3a8a; color: #fff; cursor: pointer;
}
button.secondary { background: #fff; color: #1f3a8a; }
button.danger { background: #fff; color: #991b1b; border-color: #991b1b; }
button:focus-visible, input:focus-visible, textarea:focus-visible, select:focus-visible, [tabindex="-1"]:focus-visible {
  outline: 3px solid #b45309; outline-offset: 2px;
}
#queue { list-style: none; padding: 0; }
#queue button {
  display: flex; flex-direction: column; align-items: flex-start; width: 100%; margin: 0 0 0.5rem;
  background: #f3f4f6; color: #1a1a1a; border-color: #4b5563; text-align: left;
}
#queue button[aria-current="true"] { border-color: #1f3a8a; background: #e0e7ff; }
.badges { display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; font-size: 0.9rem; }
.urgency-overdue, .urgency-urgent, .risk-critical, .risk-high { color: #991b1b; font-weight: 600; }
dl { display: grid; grid-template-columns: minmax(6rem, max-content) 1fr; gap: 0.25rem 1rem; }
dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
ol.chain, ol.provenance { padding-left: 1.25rem; }
label { display: block; font-weight: 600; margin-top: 0.75rem; }
input[type="text"], input[type="number"], textarea {
  font: inherit; width: 100%; box-sizing: border-box; padding: 0.5rem; border: 1px solid #4b5563; border-radius: 0.25rem;
}
input[aria-invalid="true"], textarea[aria-invalid="true"] { border: 2px solid #991b1b; }
textarea { min-height: 5rem; }
fieldset { border: 1px solid #4b5563; border-radius: 0.375rem; margin: 1rem 0; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.error { color: #991b1b; }
.hint { color: #374151; font-size: 0.9rem; }
`;
