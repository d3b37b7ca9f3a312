/**
 * The script of a workload page, run in the browser after uPlot's: it reads the page's data (a JSON
 * script element), draws one uPlot chart per entry with one line per client count, marks change points
 * with dashed vertical lines and where the workload's definition changed with a grey solid one ("workload
 * changed"), shows a tooltip (commit, date, median [CI], n) at the cursor and opens the commit on click. On
 * the index it draws the chart of what each answer cost (the page's `cost`). The time axis is in UTC and
 * follows the page's timeAxis data (time-axis.ts): the
 * chart opens on the chart's xRange, and the visible span picks the labels and the tick spacing.
 * It records what it drew on the chart elements (data-drawn, data-markers, and data-x-axis: the time
 * axis' scale and every tick label with where it lies), how many resources the page fetched
 * (data-resources on body) and any script error in #errors, so a headless browser's DOM dump shows
 * whether the page really rendered and whether its labels can be read.
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
  /** A uPlot time (seconds) as a Date whose local fields read UTC: the axis, like every date in the site, is UTC. */
  function utc(t) { return uPlot.tzDate(new Date(t * 1e3), 'Etc/UTC'); }
  var timeAxis = data.timeAxis;
  /** The labelling of a visible span: the first level whose maxSpan holds it (timeAxisLevel in time-axis.ts). */
  function levelFor(span) {
    for (var i = 0; i < timeAxis.levels.length; i++) {
      var level = timeAxis.levels[i];
      if (level.maxSpan === null || span <= level.maxSpan) return level;
    }
    return timeAxis.levels[timeAxis.levels.length - 1];
  }

  /**
   * uPlot options of a chart's time axis and scale. uPlot places the ticks; the level of the visible span
   * (set by space, which uPlot calls first) gives the finest increment it may use, the spacing that keeps
   * the widest label clear of its neighbours, and the labels: the tick, and on a second line the date (or
   * year) at the first tick and where it changes.
   */
  function timeOptions(chart) {
    var first = chart.runs[0].t, last = chart.runs[chart.runs.length - 1].t;
    var level = levelFor(chart.xRange ? chart.xRange[1] - chart.xRange[0] : 0);
    return {
      scale: {
        time: true,
        // uPlot asks for the range of the data (on load, and when a double-click resets a zoom) or of a
        // selection; a range holding every run is the data's, shown as xRange (padded, or a day either side of
        // a single run), and a selection inside it is zoomed into as selected.
        range: function (u, min, max) {
          return chart.xRange && min <= first && max >= last ? chart.xRange.slice() : [min, max];
        },
      },
      axis: {
        label: 'run date, UTC (one point per commit measured)',
        font: timeAxis.font,
        space: function (u, axisIdx, min, max) { level = levelFor(max - min); return level.space; },
        incrs: function () { return timeAxis.incrs.filter(function (i) { return i >= level.minIncr; }); },
        values: function (u, splits) {
          var main = uPlot.fmtDate(level.main), context = level.context ? uPlot.fmtDate(level.context) : null;
          var labels = splits.map(function (t) { return main(utc(t)); });
          // The context line at the first tick and where it changes, none closer than contextSpace to the one
          // before: a change wins over the first tick's (the ticks before a new date belong to the one before).
          var previous = null, shown = -1;
          splits.forEach(function (t, i) {
            var line = context ? context(utc(t)) : null;
            if (line === null || line === previous) return;
            previous = line;
            if (shown >= 0 && u.valToPos(t, 'x') - u.valToPos(splits[shown], 'x') < level.contextSpace) {
              if (shown !== 0) return;
              labels[0] = main(utc(splits[0]));
            }
            labels[i] += '\n' + line;
            shown = i;
          });
          return labels;
        },
      },
    };
  }

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
              if (cp.endRun !== undefined) {
                // A drift is one event over many runs: a shaded span from its start to its end.
                var x2 = Math.round(u.valToPos(chart.runs[cp.endRun].t, 'x', true));
                ctx.fillStyle = cp.kind === 'regression' ? 'rgba(214,39,40,0.12)' : 'rgba(44,160,44,0.12)';
                ctx.fillRect(x, u.bbox.top, Math.max(x2 - x, 2), u.bbox.height);
              }
              ctx.lineWidth = 2 * devicePixelRatio;
              ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.setLineDash([]);
              ctx.fillStyle = ctx.strokeStyle;
              ctx.font = (12 * devicePixelRatio) + 'px sans-serif';
              var text = (cp.kind === 'regression' ? '\u25BC ' : '\u25B2 ') + line.label + ' ' +
                (cp.shape === 'step' ? '' : cp.shape + ' ') + pct(cp.relativeChange);
              // Labels right of the line in the left half of the plot, left of it in the right half.
              var right = x < u.bbox.left + u.bbox.width / 2;
              ctx.textAlign = right ? 'left' : 'right';
              ctx.fillText(text, x + (right ? 4 : -4) * devicePixelRatio, u.bbox.top + (14 + 14 * k) * devicePixelRatio);
              count++;
            });
          });
          (chart.definitionChanges || []).forEach(function (c) {
            var x = Math.round(u.valToPos(chart.runs[c.run].t, 'x', true));
            ctx.strokeStyle = '#777';
            ctx.lineWidth = 2 * devicePixelRatio;
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.fillStyle = '#555';
            ctx.font = (12 * devicePixelRatio) + 'px sans-serif';
            var right = x < u.bbox.left + u.bbox.width / 2;
            ctx.textAlign = right ? 'left' : 'right';
            ctx.fillText('workload changed', x + (right ? 4 : -4) * devicePixelRatio, u.bbox.top + u.bbox.height - 8 * devicePixelRatio);
          });
          ctx.restore();
          host.setAttribute('data-markers', String(count));
          host.setAttribute('data-definition-changes', String((chart.definitionChanges || []).length));
        }],
      },
    };
  }

  /**
   * A tooltip at the cursor over one of the runs, filled by fill(tip, i) with text nodes only (never
   * innerHTML: the page's data is never parsed as HTML); a click opens the run's commit.
   */
  function hoverTip(runs, host, fill) {
    var tip = document.createElement('div');
    tip.className = 'tooltip';
    tip.hidden = true;
    return {
      hooks: {
        init: [function (u) {
          u.over.appendChild(tip);
          u.over.addEventListener('click', function () {
            var i = u.cursor.idx;
            var url = i == null ? null : commitUrl(runs[i].sha);
            if (url) window.open(url, '_blank', 'noopener');
          });
        }],
        setCursor: [function (u) {
          var i = u.cursor.idx;
          if (i == null || u.cursor.left < 0) { tip.hidden = true; return; }
          var run = runs[i];
          tip.textContent = '';
          var head = el('div');
          head.appendChild(el('b', short(run.sha)));
          head.appendChild(document.createTextNode(' ' + String(run.date).slice(0, 16).replace('T', ' ') + ' UTC'));
          tip.appendChild(head);
          fill(tip, i, commitUrl(run.sha) ? '; click opens the commit' : '');
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

  function tooltip(chart, host) {
    return hoverTip(chart.runs, host, function (tip, i, click) {
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
      var hint = el('div', chart.unit + ', median [CI]' + click);
      hint.className = 'hint';
      tip.appendChild(hint);
    });
  }

  var measure = document.createElement('canvas').getContext('2d');
  /**
   * What uPlot drew on the time axis, for a headless browser's DOM dump: the scale, the plot box and each
   * tick's value with every line of its label and where that line lies (CSS px from the canvas' left).
   */
  function recordTimeAxis(u, host) {
    var axis = u.axes[0], ratio = devicePixelRatio || 1;
    measure.font = axis.font[0];
    var plotLeft = u.bbox.left / ratio;
    var ticks = (axis._splits || []).map(function (t, i) {
      var x = plotLeft + u.valToPos(t, 'x');
      var label = axis._values[i] == null ? '' : String(axis._values[i]);
      return { t: t, lines: label.split('\n').map(function (text) {
        var w = measure.measureText(text).width / ratio;
        return { text: text, left: x - w / 2, right: x + w / 2 };
      }) };
    });
    host.setAttribute('data-x-axis', JSON.stringify({
      min: u.scales.x.min, max: u.scales.x.max, plotLeft: plotLeft, plotWidth: u.bbox.width / ratio,
      canvasWidth: u.width, ticks: ticks,
    }));
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
      var time = timeOptions(chart);
      var started = performance.now();
      new uPlot({
        width: width,
        height: 380,
        series: series,
        tzDate: utc,
        scales: { x: time.scale },
        axes: [
          time.axis,
          { label: chart.label + ' (' + chart.unit + ', median per run)', size: 80 },
        ],
        plugins: [markers(chart, host), tooltip(chart, host)],
        hooks: {
          draw: [function () {
            host.setAttribute('data-drawn', String((Number(host.getAttribute('data-drawn')) || 0) + 1));
            host.setAttribute('data-draw-ms', String(Math.round(performance.now() - started)));
            // Since navigation start: what a reader waits from opening the page to this chart drawn.
            host.setAttribute('data-drawn-at-ms', String(Math.round(performance.now())));
          }, function (u) { recordTimeAxis(u, host); }],
        },
      }, columns, host);
    } catch (e) {
      report(chart.id + ': ' + (e && e.message ? e.message : String(e)));
    }
  });
  /** The index's chart of what each answer cost: the wall time and its stages, per run (CostChartData). */
  var stageColour = { wall: '#222222', build: '#8c564b', counted: '#9467bd', timed: '#17becf' };
  function drawCost(cost) {
    var host = document.getElementById(cost.id);
    try {
      var series = [{ label: 'run', value: function (u, v, s, i) { return i == null ? '-' : short(cost.runs[i].sha); } }];
      var columns = [cost.runs.map(function (r) { return r.t; })];
      cost.lines.forEach(function (line) {
        var wall = line.stage === 'wall';
        series.push({
          label: line.label,
          stroke: stageColour[line.stage],
          width: wall ? 2 : 1.25,
          points: { show: cost.runs.length <= 400, size: wall ? 5 : 3 },
          value: function (u, v) { return v == null ? '-' : fmt(v) + ' ' + cost.unit; },
        });
        columns.push(line.values);
      });
      var time = timeOptions(cost);
      new uPlot({
        width: Math.max(360, Math.min(1200, (host.clientWidth || 960))),
        height: 240,
        series: series,
        tzDate: utc,
        scales: {
          x: time.scale,
          // A cost starts at nothing: the axis from 0, whatever the cheapest answer.
          y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } },
        },
        axes: [time.axis, { label: 'answer cost (' + cost.unit + ')', size: 60 }],
        plugins: [hoverTip(cost.runs, host, function (tip, i, click) {
          tip.appendChild(el('div', cost.runs[i].text));
          var hint = el('div', 'wall time and its stages' + click);
          hint.className = 'hint';
          tip.appendChild(hint);
        })],
        hooks: {
          draw: [function () {
            host.setAttribute('data-drawn', String((Number(host.getAttribute('data-drawn')) || 0) + 1));
          }, function (u) { recordTimeAxis(u, host); }],
        },
      }, columns, host);
    } catch (e) {
      report(cost.id + ': ' + (e && e.message ? e.message : String(e)));
    }
  }
  if (data.cost) drawCost(data.cost);

  document.body.setAttribute('data-charts', String(data.charts.length));
  // Resources fetched by the page (scripts, styles, images, fetch/XHR): 0 for a self-contained page.
  document.body.setAttribute('data-resources', String(performance.getEntriesByType('resource').length));
})();
`;
