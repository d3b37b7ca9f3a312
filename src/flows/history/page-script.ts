/**
 * The script of a workload page, run in the browser after uPlot's: it reads the page's data (a JSON
 * script element), draws one uPlot chart per entry with one line per client count, marks change points
 * with dashed vertical lines, shows a tooltip (commit, date, median [CI], n) at the cursor and opens the
 * commit on click. It records what it drew on the chart elements (data-drawn, data-markers), how many
 * resources the page fetched (data-resources on body) and any script error in #errors, so a headless browser's DOM dump shows whether the page really rendered.
 * Plain ES2017, no imports: the page must work from file:// with no network.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var errors = document.getElementById('errors');
  function report(message) {
    errors.hidden = false;
    errors.textContent += message + '\n';
    document.body.setAttribute('data-errors', String((Number(document.body.getAttribute('data-errors')) || 0) + 1));
  }
  window.addEventListener('error', function (e) { report(String(e.message)); });
  var data = JSON.parse(document.getElementById('history-data').textContent);
  var palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
  function short(sha) { return sha ? sha.slice(0, 10) : 'no commit'; }
  function fmt(v) {
    if (v == null) return '-';
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 1 ? v.toFixed(2) : v.toPrecision(3);
  }
  function pct(v) { return (v > 0 ? '+' : '') + (v * 100).toFixed(2) + '%'; }
  function commitUrl(sha) {
    return data.repoUrl && sha && /^[0-9a-f]{4,64}$/i.test(sha) ? data.repoUrl + '/commit/' + sha : null;
  }

  function markers(chart, host) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, count = 0;
          ctx.save();
          chart.lines.forEach(function (line, k) {
            line.changePoints.forEach(function (cp) {
              var x = Math.round(u.valToPos(chart.runs[cp.run].t, 'x', true));
              ctx.strokeStyle = cp.kind === 'regression' ? '#d62728' : '#2ca02c';
              ctx.lineWidth = 2 * devicePixelRatio;
              ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.setLineDash([]);
              ctx.fillStyle = ctx.strokeStyle;
              ctx.font = (12 * devicePixelRatio) + 'px sans-serif';
              var text = (cp.kind === 'regression' ? '\u25BC ' : '\u25B2 ') + line.label + ' ' + pct(cp.relativeChange);
              // Labels right of the line in the left half of the plot, left of it in the right half.
              var right = x < u.bbox.left + u.bbox.width / 2;
              ctx.textAlign = right ? 'left' : 'right';
              ctx.fillText(text, x + (right ? 4 : -4) * devicePixelRatio, u.bbox.top + (14 + 14 * k) * devicePixelRatio);
              count++;
            });
          });
          ctx.restore();
          host.setAttribute('data-markers', String(count));
        }],
      },
    };
  }

  function tooltip(chart, host) {
    var tip = document.createElement('div');
    tip.className = 'tooltip';
    tip.hidden = true;
    return {
      hooks: {
        init: [function (u) {
          u.over.appendChild(tip);
          u.over.addEventListener('click', function () {
            var i = u.cursor.idx;
            var url = i == null ? null : commitUrl(chart.runs[i].sha);
            if (url) window.open(url, '_blank', 'noopener');
          });
        }],
        setCursor: [function (u) {
          var i = u.cursor.idx;
          if (i == null || u.cursor.left < 0) { tip.hidden = true; return; }
          var run = chart.runs[i];
          // Built with text nodes, never innerHTML: the page's data is never parsed as HTML.
          tip.textContent = '';
          var head = el('div');
          head.appendChild(el('b', short(run.sha)));
          head.appendChild(document.createTextNode(' ' + String(run.date).slice(0, 16).replace('T', ' ')));
          tip.appendChild(head);
          var table = el('table');
          chart.lines.forEach(function (line) {
            if (line.median[i] == null) return;
            var tr = el('tr');
            tr.appendChild(el('td', line.label));
            tr.appendChild(el('td', fmt(line.median[i])));
            tr.appendChild(el('td', '[' + fmt(line.lower[i]) + ', ' + fmt(line.upper[i]) + ']'));
            tr.appendChild(el('td', 'n ' + line.n[i]));
            table.appendChild(tr);
          });
          tip.appendChild(table);
          var hint = el('div', chart.unit + ', median [CI]' + (commitUrl(run.sha) ? '; click opens the commit' : ''));
          hint.className = 'hint';
          tip.appendChild(hint);
          tip.hidden = false;
          var left = u.cursor.left + 12, top = u.cursor.top + 12;
          if (left + 260 > u.over.clientWidth) left = u.cursor.left - 270;
          tip.style.left = left + 'px';
          tip.style.top = top + 'px';
          host.setAttribute('data-tooltip-run', run.runId);
        }],
      },
    };
  }

  /** An element with, optionally, its text (a text node: nothing in the data is parsed as HTML). */
  function el(tag, text) {
    var node = document.createElement(tag);
    if (text != null) node.textContent = String(text);
    return node;
  }

  data.charts.forEach(function (chart) {
    var host = document.getElementById(chart.id);
    try {
      var series = [{ label: 'run', value: function (u, v, s, i) { return i == null ? '-' : short(chart.runs[i].sha); } }];
      var columns = [chart.runs.map(function (r) { return r.t; })];
      chart.lines.forEach(function (line, k) {
        series.push({
          label: line.label,
          stroke: palette[k % palette.length],
          width: 1.5,
          spanGaps: true,
          points: { show: chart.runs.length <= 400, size: 5 },
          value: function (u, v, s, i) {
            return v == null ? '-' : fmt(v) + ' [' + fmt(line.lower[i]) + ', ' + fmt(line.upper[i]) + ']';
          },
        });
        columns.push(line.median);
      });
      var width = Math.max(360, Math.min(1200, (host.clientWidth || 960)));
      var started = performance.now();
      new uPlot({
        width: width,
        height: 380,
        series: series,
        scales: { x: { time: true } },
        axes: [
          { label: 'run date (one point per commit measured)' },
          { label: chart.label + ' (' + chart.unit + ', median per run)', size: 80 },
        ],
        plugins: [markers(chart, host), tooltip(chart, host)],
        hooks: {
          draw: [function () {
            host.setAttribute('data-drawn', String((Number(host.getAttribute('data-drawn')) || 0) + 1));
            host.setAttribute('data-draw-ms', String(Math.round(performance.now() - started)));
            // Since navigation start: what a reader waits from opening the page to this chart drawn.
            host.setAttribute('data-drawn-at-ms', String(Math.round(performance.now())));
          }],
        },
      }, columns, host);
    } catch (e) {
      report(chart.id + ': ' + (e && e.message ? e.message : String(e)));
    }
  });
  document.body.setAttribute('data-charts', String(data.charts.length));
  // Resources fetched by the page (scripts, styles, images, fetch/XHR): 0 for a self-contained page.
  document.body.setAttribute('data-resources', String(performance.getEntriesByType('resource').length));
})();
`;
