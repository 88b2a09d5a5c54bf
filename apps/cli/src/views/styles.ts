/** The app's whole stylesheet, inlined into every page. @internal */
export const STYLES = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--link:#0b57d0;
--ok-bg:#dafbe1;--ok-fg:#116329;--ok-line:#4ac26b;--fail-bg:#ffebe9;--fail-fg:#a40e26;--fail-line:#ff8182;
--neutral-bg:#eaeef2;--neutral-fg:#424a53;--neutral-line:#afb8c1;--run-bg:#ddf4ff;--run-fg:#0a3069;--run-line:#54aeff;
--warn-bg:#fff8c5;--warn-fg:#6c4400;--warn-line:#d4a72c;--step-fg:#512a97;--step-line:#c297ff;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font-size:15px;line-height:1.45}
a{color:var(--link)}a:focus-visible,button:focus-visible,select:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:6px 10px;z-index:2}
header.top{background:#24292f;color:#fff;padding:0 24px;display:flex;align-items:center;gap:24px;flex-wrap:wrap;min-height:56px}
header.top a{color:#fff;text-decoration:none}
.brand{font-weight:700;font-size:18px;letter-spacing:.2px}.brand small{font-weight:400;color:#c9d1d9;margin-left:10px;font-size:13px}
nav.main{display:flex;gap:4px}nav.main a{padding:8px 12px;border-radius:6px}nav.main a[aria-current=page]{background:#3d444d}
nav.lang{margin-left:auto;display:flex;gap:6px;align-items:center;font-size:13px;color:#c9d1d9}
nav.lang a{padding:3px 8px;border:1px solid #57606a;border-radius:12px}nav.lang a[aria-current=true]{background:#fff;color:#24292f;font-weight:600}
main{padding:20px 24px 40px;max-width:1400px;margin:0 auto}
h1{font-size:22px;margin:4px 0 14px}h2{font-size:17px;margin:22px 0 10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin-bottom:16px}
table{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow:hidden}
table{min-width:100%}.table-wrap{overflow-x:auto;border-radius:8px}
th,td{padding:7px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-size:12px;text-transform:uppercase;letter-spacing:.4px;color:var(--muted);white-space:nowrap}
tbody th{background:none;text-transform:none;letter-spacing:0;font-size:14px;color:var(--fg);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:hover{background:#f6f8fa}
table.timeline td:nth-child(3){white-space:nowrap}
tr.lifecycle td{background:#fbfcfd;color:var(--muted);font-style:italic}
tr.row-failed td:first-child{box-shadow:inset 4px 0 0 var(--fail-line)}tr.row-cancelled td:first-child{box-shadow:inset 4px 0 0 var(--neutral-line)}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.badge{display:inline-flex;align-items:center;gap:4px;padding:1px 9px;border-radius:999px;font-size:12.5px;font-weight:600;border:1px solid;white-space:nowrap}
.badge-ok,.badge-completed{background:var(--ok-bg);color:var(--ok-fg);border-color:var(--ok-line)}
.badge-failed{background:var(--fail-bg);color:var(--fail-fg);border-color:var(--fail-line)}
.badge-cancelled,.badge-neutral{background:var(--neutral-bg);color:var(--neutral-fg);border-color:var(--neutral-line)}
.badge-running{background:var(--run-bg);color:var(--run-fg);border-color:var(--run-line)}
.badge-interrupted,.badge-flaky,.badge-may-have-executed{background:var(--warn-bg);color:var(--warn-fg);border-color:var(--warn-line)}
.counts{display:flex;gap:6px;flex-wrap:wrap}.count{font-variant-numeric:tabular-nums}
.badge.count-zero{background:#fff;color:var(--muted);border-color:var(--line);font-weight:500}
form.filters{display:flex;gap:14px;align-items:flex-end;flex-wrap:wrap}
form.filters label{display:flex;flex-direction:column;font-size:13px;color:var(--muted);gap:3px}
form.filters input{font:inherit;padding:5px 8px;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--fg);max-width:100%}
form.filters input:focus-visible{outline:3px solid #0969da;outline-offset:2px}form.filters input[aria-invalid=true]{border-color:var(--fail-fg);box-shadow:0 0 0 1px var(--fail-fg)}
form.filters label{max-width:100%}form.filters .filter-actions{display:flex;gap:10px}form.filters .hint{flex-basis:100%;margin:0;font-size:13px}
.note-error{border-color:var(--fail-line);background:var(--fail-bg);color:var(--fail-fg)}.note-error p,.note-error ul{margin:0}.note-error ul{padding-left:20px}.note-error a{color:var(--fail-fg)}
.totals{font-weight:600;font-variant-numeric:tabular-nums;margin:0 0 10px}.refresh{margin:0 0 8px;font-size:14px}
select,button,.button{font:inherit;padding:6px 10px;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--fg)}
button,.button{cursor:pointer;text-decoration:none;display:inline-block}
button.primary{background:#1f883d;color:#fff;border-color:#1a7f37}
button.danger{background:#cf222e;color:#fff;border-color:#a40e26;font-weight:600}
.pager{display:flex;gap:10px;align-items:center;margin:12px 0;color:var(--muted);font-size:14px}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0}dl.summary dt{color:var(--muted)}dl.summary dd{margin:0}
.note{border-left:4px solid var(--neutral-line);background:var(--neutral-bg);padding:8px 12px;border-radius:4px;margin:8px 0}
.note-privacy{border-color:var(--run-line);background:var(--run-bg)}
.note-warn{border-color:var(--warn-line);background:var(--warn-bg);color:var(--warn-fg);font-size:13px;margin:6px 0 0}
.error-message{margin:4px 0 0;overflow-wrap:anywhere}.step-content{margin:4px 0 0}.step-content summary{cursor:pointer;color:var(--link,inherit)}.step-content p.k{margin:6px 0 2px}.step-content pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12.5px}.why{font-size:13px}
.muted{color:var(--muted)}.details{font-size:13.5px}.details .kv{margin-right:10px;white-space:nowrap;display:inline-block}.details .k{color:var(--muted)}
.flash{padding:10px 14px;border-radius:6px;margin-bottom:14px;border:1px solid var(--run-line);background:var(--run-bg)}
.sort{color:inherit;text-decoration:none}.sort:hover{text-decoration:underline}
.rate{font-weight:600;font-variant-numeric:tabular-nums}
[hidden]{display:none!important}.live-note{margin:0 0 10px;font-size:14px}.live-note button{margin-left:6px;padding:2px 8px;font-size:13px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
ul.alert-list,ol.alert-list{list-style:none;padding:0;margin:0 0 12px}.alert-list li{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 10px;margin-bottom:6px;overflow-wrap:anywhere}section.alerts h3{font-size:15px;margin:14px 0 8px}
@media (max-width:800px){main{padding:12px}th,td{padding:6px}.hide-narrow{display:none}}
h1{overflow-wrap:anywhere}dl.summary dd{overflow-wrap:anywhere;min-width:0}
tr.row-on_the_wire td:first-child{box-shadow:inset 4px 0 0 var(--run-line)}tr.row-interrupted td:first-child{box-shadow:inset 4px 0 0 var(--warn-line)}
table.timeline tr:target td{background:var(--warn-bg)}
.waterfall{position:relative}.waterfall-chart{display:block;width:100%;overflow:visible}
.waterfall .tick line{stroke:#eaeef2}.waterfall .tick text{fill:var(--muted);font-size:11px;font-variant-numeric:tabular-nums}
.waterfall .marker line{stroke:var(--muted);stroke-dasharray:2 3}.waterfall .marker-cancel_requested line{stroke:var(--neutral-fg);stroke-width:2;stroke-dasharray:5 3}
.waterfall .marker-labelled text{fill:var(--fg);font-size:12px;font-weight:600}
.bar-label{font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",Menlo,Consolas,monospace;font-size:11px;fill:var(--fg);pointer-events:none}
.label-wide{display:none}@media (min-width:1000px){.label-wide{display:inline}.label-narrow{display:none}}
nav.zoom{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 10px;font-size:14px}nav.zoom p{margin:0;flex-basis:100%}
.bar rect{stroke-width:1}.bar:hover rect{stroke-width:2}.bar:focus{outline:none}.bar:focus-visible rect{stroke:#0969da;stroke-width:3}
.bar-ok rect{fill:var(--ok-line);stroke:var(--ok-fg)}.bar-failed rect{fill:var(--fail-line);stroke:var(--fail-fg)}
.bar-cancelled rect{fill:var(--neutral-line);stroke:var(--neutral-fg)}.bar-running rect{fill:var(--run-line);stroke:var(--run-fg);stroke-dasharray:4 2}
.bar-interrupted rect{fill:var(--warn-line);stroke:var(--warn-fg)}.bar-step rect{fill:var(--step-line);stroke:var(--step-fg)}
.bar-may-have-executed rect{stroke:var(--warn-fg);stroke-width:2.5}
ul.legend{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0;margin:6px 0 10px;font-size:13px}
ul.legend li{display:inline-flex;align-items:center;gap:6px}.swatch{display:inline-block;width:18px;height:10px;border:1px solid;border-radius:2px}
.swatch-ok{background:var(--ok-line);border-color:var(--ok-fg)}.swatch-failed{background:var(--fail-line);border-color:var(--fail-fg)}
.swatch-cancelled{background:var(--neutral-line);border-color:var(--neutral-fg)}.swatch-running{background:var(--run-line);border-color:var(--run-fg);border-style:dashed}
.swatch-interrupted{background:var(--warn-line);border-color:var(--warn-fg)}.swatch-step{background:var(--step-line);border-color:var(--step-fg)}
.swatch-may-have-executed{border:2.5px solid var(--warn-fg);height:14px;font-size:10px;line-height:9px;text-align:center;color:var(--fg)}
@media (max-width:600px){
table.timeline thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.timeline,table.timeline tbody{display:block;border:0;background:none}
table.timeline tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 10px;padding:6px 8px;background:var(--card);border:1px solid var(--line);border-top:0}
table.timeline tr:first-child{border-top:1px solid var(--line)}
table.timeline td{display:block;padding:0;border:0;min-width:0}
table.timeline td.round{display:none}
table.timeline td:first-child{box-shadow:none}
table.timeline tr.row-failed{border-left:4px solid var(--fail-line)}table.timeline tr.row-cancelled{border-left:4px solid var(--neutral-line)}
table.timeline tr.row-on_the_wire{border-left:4px solid var(--run-line)}table.timeline tr.row-interrupted{border-left:4px solid var(--warn-line)}
table.timeline td.duration:not(.has-duration){display:none}
table.timeline td.outcome{margin-left:auto}
table.timeline td.details{flex-basis:100%;overflow-wrap:anywhere}
table.timeline td.details .kv{white-space:normal}
}
.spark{display:block;margin:4px 0 0 auto;overflow:visible}.spark .base{stroke:var(--line)}
.trend .series line,.spark .series polyline{stroke-width:1.5;stroke-linecap:round;stroke-linejoin:round;fill:none}
.trend-failureRate .series line,.trend-failureRate .series polyline{stroke:var(--fail-fg)}.trend-failureRate .series circle{fill:var(--fail-fg)}
.trend-failureRate .series .zero{stroke:var(--ok-fg)}.trend-failureRate .series circle.zero{fill:var(--ok-fg)}
.trend-p95 .series line,.trend-p95 .series polyline{stroke:var(--run-fg)}.trend-p95 .series circle{fill:var(--run-fg)}
.trend-charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:8px 24px}
.trend h3{font-size:15px;margin:8px 0 6px}.trend-chart{display:block;overflow:visible}.trend-chart .grid{stroke:#eaeef2}
.trend-plot{display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 6px}
.trend-y{display:flex;flex-direction:column;justify-content:space-between;text-align:right;font-size:11px;color:var(--muted);font-variant-numeric:tabular-nums}
.trend-x{display:flex;justify-content:space-between;gap:8px;font-size:11px;color:var(--muted)}
.trend-summary{font-size:13px;margin:4px 0 0}details.trend-figures{margin-top:12px}details.trend-figures summary{cursor:pointer;color:var(--link)}
table.failing-calls td.run{white-space:nowrap}[data-section=health]>h2,[data-section=trends]>h2{margin-top:2px}
@media (max-width:600px){
table.failing-calls thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.failing-calls,table.failing-calls tbody{display:block;border:0;background:none}
table.failing-calls tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 10px;padding:6px 8px;background:var(--card);border:1px solid var(--line);border-top:0}
table.failing-calls tr:first-child{border-top:1px solid var(--line)}
table.failing-calls td{display:block;padding:0;border:0;min-width:0;overflow-wrap:anywhere}
table.servers .spark{margin-left:0}
}
@media (min-width:601px){
table.servers thead th{white-space:normal;letter-spacing:0}table.servers th,table.servers td{padding:7px 6px}
table.servers tbody th{overflow-wrap:anywhere}table.servers ul.causes{margin:0;padding-left:16px}table.servers td.health .badge{white-space:normal;border-radius:10px}
}
@media (max-width:600px){
table.wire-calls th{white-space:normal}table.wire-calls td:first-child{overflow-wrap:anywhere}table.wire-calls td:nth-child(3){white-space:nowrap}table.wire-calls th,table.wire-calls td{padding:6px 4px}
.pager{flex-wrap:wrap}
table.runs,table.runs tbody,table.servers,table.servers tbody,table.servers thead{display:block;border:0;background:none}
table.runs thead,table.servers thead th:not([aria-sort]){position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.servers thead tr{display:flex;flex-wrap:wrap;gap:4px 8px;margin-bottom:6px}
table.servers thead th{display:block;padding:4px 8px;border:1px solid var(--line);border-radius:6px;background:var(--card)}
table.runs tbody tr,table.servers tbody tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 12px;padding:8px 10px;background:var(--card);border:1px solid var(--line);border-top:0}
table.runs tbody tr:first-child,table.servers tbody tr:first-child{border-top:1px solid var(--line);border-radius:8px 8px 0 0}
table.runs tbody tr:last-child,table.servers tbody tr:last-child{border-radius:0 0 8px 8px}
table.runs tbody tr:only-child,table.servers tbody tr:only-child{border-radius:8px}
table.runs td,table.servers tbody th,table.servers td{display:block;padding:0;border:0;min-width:0;text-align:left}
table.runs td.hide-narrow{display:none}table.runs td.configuration,table.runs td.run{overflow-wrap:anywhere;min-width:0}table.runs td.calls{flex-basis:100%}
table.servers tbody th{flex:1 1 0;overflow-wrap:anywhere}table.servers td.health{order:1}table.servers td.rate-cell{order:2;flex-basis:100%}
table.servers td{order:3}table.servers td.failure-causes,table.servers td.last-failure,table.servers td.p95{order:4;flex-basis:100%}
table.servers td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-size:13px}
table.servers ul.causes{display:inline;padding:0;margin:0;list-style:none}table.servers ul.causes li{display:inline;margin-right:8px}
}
`;
